"""Scripted OpenAI-compatible LLM server for tests and benchmarks (stdlib only).

Contract:

* Binds ``127.0.0.1`` on an ephemeral port (or the one given); ``base_url`` is
  ``http://127.0.0.1:PORT/v1``, or ``https://`` when given a server ``tls`` context
  (see ``testing.tls``).  Serves from a daemon thread; one thread per request.
* ``POST /v1/chat/completions`` pops the next scripted :class:`Reply` (FIFO).  When the
  queue is empty the ``default_reply`` is used, so unscripted calls (title generation,
  auxiliary calls, retries) never hang.  Every request body is recorded, in arrival
  order, in :attr:`ScriptedLLM.requests` (a thread-safe snapshot).
* ``"stream": true`` -> Server-Sent Events: one ``chat.completion.chunk`` per text piece
  (written and flushed immediately, TCP_NODELAY), then a ``finish_reason`` chunk, a usage
  chunk (when ``stream_options.include_usage`` is set or ``send_usage=True``) and
  ``data: [DONE]``.  Tool calls use the standard OpenAI ``delta.tool_calls`` format
  (header chunk with id/name, then an arguments chunk, ``finish_reason: tool_calls``),
  optionally preceded by content pieces (``Reply.tool_call(..., text=[...])``).
  ``Reply.text(..., reasoning=[...])`` streams ``delta.reasoning_content`` pieces first.
  Without ``stream`` a plain ``chat.completion`` JSON object is returned.
* ``enqueue_for(marker, *replies)`` scripts one conversation among several that
  run at once (an agent and its subagents): a request whose first user message
  contains ``marker`` takes the next of those replies, before the common queue.
* A reply with a ``Gate`` (``Reply.text(..., gate=Gate())``) is held once its
  request has arrived (``gate.arrived``) until the test sets ``gate.release``.
* ``Reply.with_headers({...})`` adds HTTP headers to its response (a
  provider's x-ratelimit-* headers, say).
* Error replies answer with the scripted HTTP status and an OpenAI-style error body.
  Note that clients usually retry 429/5xx, and every retry consumes another reply.
* ``on_chunk_sent(index, text, t_monotonic_ns)`` is called right after each streamed
  text chunk is flushed (for latency benchmarks; the client may see the chunk a hair
  earlier).  It runs on the request thread.
* ``GET /v1/models`` lists the configured model (with ``context_length``/``max_model_len`` when
  ``context_length`` is set); every other path answers 404 JSON. While
  ``models_gate`` is set, each such listing is held like a gated reply (a
  model picker that waits on a slow provider); ``models_listed`` counts them.
  ``pricing`` (e.g. ``{"prompt": "0.000002", "completion": "0.00001"}``, USD per
  token) is listed as the model's price, for clients that estimate costs.
* CLI: ``python -m hermes_stdio.testing.llm_server --port 0`` prints the port on stdout
  and serves the default reply until interrupted; ``--script JSON`` queues replies
  first, each ``{"text": "..."}`` or ``{"tool": NAME, "arguments": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from .replies import Gate, Reply

ChunkHook = Callable[[int, str, int], None]
JSON = dict[str, Any]
Headers = tuple[tuple[str, str], ...]

__all__ = ["ChunkHook", "Gate", "Reply", "ScriptedLLM", "main"]


def _new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:24]}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    llm: ScriptedLLM


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr logging
        pass

    # -- helpers -------------------------------------------------------------------------
    def _send_json(self, status: int, body: JSON, headers: Headers = ()) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _not_found(self) -> None:
        msg = f"no route for {self.command} {self.path}"
        self._send_json(404, {"error": {"message": msg, "type": "not_found", "code": 404}})

    # -- routes --------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path.split("?", 1)[0].rstrip("/") == "/v1/models":
            llm = self.server.llm
            gate = llm.listing()
            if gate is not None:
                gate.arrived.set()
                gate.release.wait(gate.timeout_s)
            model: JSON = {"id": llm.model, "object": "model", "created": 0, "owned_by": "scripted"}
            if llm.context_length:  # read by clients probing the context window
                model["context_length"] = model["max_model_len"] = llm.context_length
            if llm.pricing is not None:  # USD per token, as OpenRouter's models API says it
                model["pricing"] = llm.pricing
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._not_found()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._not_found()
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "invalid JSON", "type": "bad_request"}})
            return
        llm = self.server.llm
        reply = llm._take(body, self.headers.get("Authorization"))
        if reply.gate is not None:
            reply.gate.arrived.set()
            reply.gate.release.wait(reply.gate.timeout_s)
        try:
            if reply.kind == "error":
                err = {"message": reply.message, "type": "scripted_error", "code": reply.status}
                self._send_json(reply.status, {"error": err}, reply.headers)
            elif body.get("stream"):
                self._stream(llm, body, reply)
            else:
                self._send_json(200, llm._completion(body, reply), reply.headers)
        except (BrokenPipeError, ConnectionResetError):  # client went away (interrupt)
            self.close_connection = True

    def _stream(self, llm: ScriptedLLM, body: JSON, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True  # body is delimited by connection close
        cid, model, created = _new_id("chatcmpl"), llm._model_for(body), int(time.time())

        def emit(delta: JSON | None, finish: str | None = None, usage: JSON | None = None) -> None:
            chunk: JSON = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
            }
            if delta is not None:
                chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
            if usage is not None:
                chunk["usage"] = usage
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        for piece in reply.reasoning:
            emit({"role": "assistant", "content": None, "reasoning_content": piece})
        for i, piece in enumerate(reply.chunks):
            if reply.delay:
                time.sleep(reply.delay)
            emit({"role": "assistant", "content": piece} if i == 0 else {"content": piece})
            if llm.on_chunk_sent is not None:
                llm.on_chunk_sent(i, piece, time.monotonic_ns())
        for i, (name, args) in enumerate(reply.calls):
            if reply.delay:
                time.sleep(reply.delay)
            head = {
                "index": i,
                "id": _new_id("call"),
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            emit({"role": "assistant", "content": None, "tool_calls": [head]})
            emit({"tool_calls": [{"index": i, "function": {"arguments": args}}]})
        finish = "tool_calls" if reply.calls else "stop"
        emit({}, finish)
        if llm.send_usage or (body.get("stream_options") or {}).get("include_usage"):
            emit(None, usage=llm._usage(body, reply))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _first_user_text(body: JSON) -> str:
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


class ScriptedLLM:
    """A scripted OpenAI-compatible chat-completions server on 127.0.0.1."""

    def __init__(
        self,
        *,
        port: int = 0,
        model: str = "test-model",
        default_reply: Reply | None = None,
        on_chunk_sent: ChunkHook | None = None,
        send_usage: bool = False,
        context_length: int | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.tls = tls
        self.model = model
        self.context_length = context_length
        self.default_reply = default_reply or Reply.text(["ok"])
        self.on_chunk_sent = on_chunk_sent
        self.send_usage = send_usage
        self._requested_port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._routes: list[tuple[str, deque[Reply]]] = []  # first-user-message marker, replies
        self._requests: list[JSON] = []
        self._authorizations: list[str | None] = []
        self.models_gate: Gate | None = None
        self.models_listed = 0
        self.pricing: dict[str, str] | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> ScriptedLLM:
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", self._requested_port), _Handler)
        server.llm = self
        if self.tls is not None:
            server.socket = self.tls.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-llm:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("ScriptedLLM is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    # -- script --------------------------------------------------------------------------
    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def enqueue_for(self, marker: str, *replies: Reply) -> None:
        with self._lock:
            self._routes.append((marker, deque(replies)))

    def clear(self) -> None:
        """Drop pending replies and recorded requests."""
        with self._lock:
            self._queue.clear()
            self._routes.clear()
            self._requests.clear()
            self._authorizations.clear()
            self.models_gate, self.models_listed, self.pricing = None, 0, None

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[JSON]:
        """Snapshot of every chat-completions request body received so far."""
        with self._lock:
            return list(self._requests)

    @property
    def authorizations(self) -> list[str | None]:
        """Each chat-completions request's ``Authorization`` header, in order (None: none)."""
        with self._lock:
            return list(self._authorizations)

    def listing(self) -> Gate | None:
        """Count a ``GET /v1/models``; the gate it must wait at, if any."""
        with self._lock:
            self.models_listed += 1
            return self.models_gate

    def _take(self, body: JSON, authorization: str | None = None) -> Reply:
        with self._lock:
            self._requests.append(body)
            self._authorizations.append(authorization)
            if self._routes:
                first = _first_user_text(body)
                for marker, replies in self._routes:
                    if replies and marker in first:
                        return replies.popleft()
            return self._queue.popleft() if self._queue else self.default_reply

    # -- response builders ---------------------------------------------------------------
    def _model_for(self, body: JSON) -> str:
        return str(body.get("model") or self.model)

    @staticmethod
    def _usage(body: JSON, reply: Reply) -> JSON:
        prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
        out_chars = sum(map(len, reply.chunks)) + sum(len(a) for _, a in reply.calls)
        completion = max(1, out_chars // 4)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _completion(self, body: JSON, reply: Reply) -> JSON:
        message: JSON = {"role": "assistant", "content": "".join(reply.chunks) or None}
        if reply.reasoning:
            message["reasoning_content"] = "".join(reply.reasoning)
        finish = "stop"
        if reply.kind == "tool_calls":
            message["tool_calls"] = [
                {
                    "id": _new_id("call"),
                    "type": "function",
                    "function": {"name": name, "arguments": args},
                }
                for name, args in reply.calls
            ]
            finish = "tool_calls"
        return {
            "id": _new_id("chatcmpl"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self._model_for(body),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._usage(body, reply),
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible LLM server")
    parser.add_argument("--port", type=int, default=0, help="0 = ephemeral")
    parser.add_argument("--model", default="test-model")
    parser.add_argument("--text", default="ok", help="default reply text")
    parser.add_argument("--script", default="[]", help="JSON list of replies to queue first")
    opts = parser.parse_args(argv)
    llm = ScriptedLLM(port=opts.port, model=opts.model, default_reply=Reply.text([opts.text]))
    for item in json.loads(opts.script):
        if "tool" in item:
            llm.enqueue(Reply.tool_call(str(item["tool"]), dict(item.get("arguments") or {})))
        else:
            llm.enqueue(Reply.text([str(item["text"])]))
    llm.start()
    print(llm.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        llm.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
