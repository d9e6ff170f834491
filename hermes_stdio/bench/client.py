"""The benchmark's hosts: a framed JSON-RPC client and a newline-JSON client.

Contract:
- ``FramedClient`` spawns a child speaking LSP-framed JSON-RPC on its stdio
  (the supervisor, or the raw-pipe echo process); ``LineClient`` spawns one
  speaking newline-delimited JSON-RPC (hermes' ``tui_gateway.entry``).
- One reader thread per client takes ``time.monotonic_ns()`` as soon as a
  message is decoded, parses it and hands it on: responses wake the caller
  of ``request``; deltas go to the ``Stream`` registered for their session
  id (registered *before* the run starts, so no delta is ever unmatched);
  everything else is counted in ``other``. Nothing is kept per message
  except what a ``Stream`` records, so long runs do not grow the host.
- ``round_trips(method, params, calls)`` times sequential requests with the
  calling thread reading the child's stdout itself (the reader thread parks
  for the duration), as an event-loop host such as Node does: a thread
  handoff in the bench would add its own wake-up (40 to 75 µs here) to every
  figure. Anything else that arrives meanwhile is dispatched as usual.
- Every wait is bounded: ``request`` raises ``TimeoutError`` after its
  timeout, ``Stream.wait_done`` likewise. ``close`` ends the child (stdin
  EOF, then SIGTERM, then SIGKILL, each bounded).
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from ..transport.process import stop_child
from ..wire import FrameDecoder, encode_frame
from ..worker.synthetic import parse_stamps

_TOKEN = re.compile(r"t(\d{6});")


def token(i: int) -> str:
    """The scripted LLM's chunk ``i`` (matched back from the host's deltas)."""
    return f"t{i:06d};"


class RpcFailed(Exception):
    pass


class Stream:
    """Receipts of one session's text deltas.

    ``mode`` says how text is read: ``stamp`` (synthetic deltas of ``size``
    bytes; latency per stamp is appended to ``latencies_ns``), ``tokens``
    (scripted LLM chunk tokens; ``token_ns[i]`` is the first receipt of token
    i) or ``count`` (frames and bytes only).
    """

    def __init__(self, mode: str = "count", size: int = 20) -> None:
        self.mode = mode
        self.size = size
        self.frames = 0
        self.units = 0
        self.text_bytes = 0
        self.wire_bytes = 0
        self.first_ns = 0
        self.last_ns = 0
        self.latencies_ns: list[int] = []
        self.token_ns: dict[int, int] = {}
        self.first_delta = threading.Event()
        self.done = threading.Event()
        self.completion: dict[str, Any] | None = None

    def on_delta(self, t_ns: int, text: str, wire: int) -> None:
        self.frames += 1
        self.text_bytes += len(text)
        self.wire_bytes += wire
        if not self.first_ns:
            self.first_ns = t_ns
            self.first_delta.set()
        self.last_ns = t_ns
        if self.mode == "stamp":
            stamps = parse_stamps(text, self.size)
            self.units += len(stamps)
            self.latencies_ns.extend(t_ns - s for s in stamps)
        elif self.mode == "tokens":
            for m in _TOKEN.finditer(text):
                self.units += 1
                self.token_ns.setdefault(int(m.group(1)), t_ns)
        else:
            self.units += 1

    def finish(self, completion: dict[str, Any]) -> None:
        self.completion = completion
        self.done.set()

    def wait_done(self, timeout: float) -> None:
        if not self.done.wait(timeout):
            raise TimeoutError(f"stream not completed in {timeout}s ({self.units} deltas so far)")

    def wait_first(self, timeout: float) -> int:
        if not self.first_delta.wait(timeout):
            raise TimeoutError(f"no delta in {timeout}s")
        return self.first_ns


class _Pending:
    __slots__ = ("event", "msg")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.msg: dict[str, Any] | None = None


class _Client:
    """Common process, request and stream bookkeeping."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._log_file = log.open("ab")
        self.spawned_ns = time.monotonic_ns()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
            env=env,
            bufsize=0,
            start_new_session=True,
        )
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self.streams: dict[str, Stream] = {}
        self.other: dict[str, int] = {}
        self.events: list[tuple[int, dict[str, Any]]] = []  # selected notifications
        self.keep_events: Callable[[dict[str, Any]], bool] = lambda _m: False
        self._cond = threading.Condition()
        self.closed = threading.Event()
        self._park = False
        self._parked = threading.Event()
        self._resume = threading.Event()
        self._reader = threading.Thread(target=self._read, name="bench-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    # --- subclass hooks -----------------------------------------------------

    def _feed(self, data: bytes) -> None:
        """Decode ``data`` (the next bytes of the child's stdout) and dispatch it."""
        raise NotImplementedError

    def _write(self, msg: dict[str, Any]) -> None:
        raise NotImplementedError

    # --- reading -------------------------------------------------------------

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        try:
            while True:
                if self._park:
                    self._parked.set()
                    self._resume.wait()
                    self._resume.clear()
                    continue
                data = os.read(fd, 1 << 18)
                if not data:
                    break
                self._feed(data)
        finally:
            self._end_of_output()

    @contextmanager
    def _reading_here(self, method: str, params: Any, timeout: float) -> Iterator[int]:
        """Park the reader thread; the caller reads the child's stdout until exit."""
        assert self.proc.stdout is not None
        self._park = True
        try:
            # The reader sits in os.read: a response is what wakes it to see the flag.
            wake = self.send(method, params)
            if not self._parked.wait(timeout):
                raise TimeoutError(f"reader thread did not park in {timeout}s")
            fd = self.proc.stdout.fileno()
            self._read_until(fd, wake, timeout)
            yield fd
        finally:
            self._parked.clear()
            self._park = False
            self._resume.set()

    def _read_until(self, fd: int, pending: _Pending, timeout: float) -> None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while not pending.event.is_set():
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                raise TimeoutError(f"no response in {timeout}s (log: {self.log})")
            data = os.read(fd, 1 << 18)
            if not data:
                raise RpcFailed("the child's stdout ended")
            self._feed(data)

    # --- dispatch ------------------------------------------------------------

    def _response(self, msg: dict[str, Any]) -> None:
        with self._lock:
            pending = self._pending.pop(msg.get("id"), None)  # type: ignore[arg-type]
        if pending is not None:
            pending.msg = msg
            pending.event.set()

    def _other(self, t_ns: int, msg: dict[str, Any], name: str) -> None:
        self.other[name] = self.other.get(name, 0) + 1
        if self.keep_events(msg):
            with self._cond:
                self.events.append((t_ns, msg))
                self._cond.notify_all()

    def wait_event(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> int:
        """Receipt time of the first kept event matching ``predicate`` (bounded wait)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for t_ns, msg in self.events:
                    if predicate(msg):
                        return t_ns
                left = deadline - time.monotonic()
                if left <= 0 or self.closed.is_set():
                    raise TimeoutError(f"event not seen in {timeout}s (log: {self.log})")
                self._cond.wait(left)

    # --- api -----------------------------------------------------------------

    def watch(self, session_id: str, stream: Stream) -> Stream:
        self.streams[session_id] = stream
        return stream

    def send(self, method: str, params: Any) -> _Pending:
        pending = _Pending()
        with self._lock:
            self._next_id += 1
            msg_id = self._next_id
            self._pending[msg_id] = pending
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return pending

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> Any:
        pending = self.send(method, {} if params is None else params)
        if not pending.event.wait(timeout):
            raise TimeoutError(f"{method}: no response in {timeout}s (log: {self.log})")
        assert pending.msg is not None
        if pending.msg.get("error") is not None:
            raise RpcFailed(f"{method}: {pending.msg['error']}")
        return pending.msg.get("result")

    def round_trips(self, method: str, params: Any, calls: int, timeout: float) -> list[int]:
        """Nanoseconds of each of ``calls`` sequential requests, read on this thread."""
        samples: list[int] = []
        now = time.monotonic_ns
        with self._reading_here(method, params, timeout) as fd:
            for _ in range(calls):
                t0 = now()
                pending = self.send(method, params)
                self._read_until(fd, pending, timeout)
                samples.append(now() - t0)
                assert pending.msg is not None
                if pending.msg.get("error") is not None:
                    raise RpcFailed(f"{method}: {pending.msg['error']}")
        return samples

    def _end_of_output(self) -> None:
        """The child's stdout ended: wake every waiter and every open stream."""
        self.closed.set()
        with self._cond:
            self._cond.notify_all()
        for stream in list(self.streams.values()):
            stream.done.set()

    def close(self, timeout: float = 20.0) -> int | None:
        # stdin closed first: the supervisor exits by itself on EOF; then TERM, KILL.
        stop_child(self.proc, grace_s=0.0, after_stdin_s=timeout)
        self._reader.join(5)
        self._log_file.close()
        return self.proc.returncode


class FramedClient(_Client):
    """LSP-framed JSON-RPC host (supervisor or raw-pipe echo child)."""

    def _write(self, msg: dict[str, Any]) -> None:
        stdin: BinaryIO | None = self.proc.stdin  # type: ignore[assignment]
        assert stdin is not None
        stdin.write(encode_frame(json.dumps(msg, separators=(",", ":")).encode()))

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self._decoder = FrameDecoder()
        super().__init__(argv, env, log)

    def _feed(self, data: bytes) -> None:
        loads, now = json.loads, time.monotonic_ns
        streams = self.streams
        for frame in self._decoder.feed(data):
            body = getattr(frame, "body", None)
            if body is None:
                self._other(now(), {}, f"framing:{frame}")
                continue
            t_ns = now()
            msg = loads(body)
            method = msg.get("method")
            if method is None:
                self._response(msg)
                continue
            params = msg.get("params") or {}
            stream = streams.get(params.get("sessionId", ""))
            if stream is None:
                self._other(t_ns, msg, method)
            elif method == "run/delta":
                stream.on_delta(t_ns, params["text"], len(body))
            elif method == "run/completed":
                stream.finish(params)
            else:
                self._other(t_ns, msg, method)


class LineClient(_Client):
    """Newline-delimited JSON-RPC host (``tui_gateway.entry``)."""

    def _write(self, msg: dict[str, Any]) -> None:
        stdin: BinaryIO | None = self.proc.stdin  # type: ignore[assignment]
        assert stdin is not None
        stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self._buf = b""
        super().__init__(argv, env, log)

    def _feed(self, data: bytes) -> None:
        loads, now = json.loads, time.monotonic_ns
        *lines, self._buf = (self._buf + data).split(b"\n")
        for line in lines:
            if line.strip():
                self._line(now(), line, loads, self.streams)

    def _line(
        self,
        t_ns: int,
        line: bytes,
        loads: Callable[[bytes], Any],
        streams: dict[str, Stream],
    ) -> None:
        try:
            msg = loads(line)
        except ValueError:
            self._other(t_ns, {}, "non-json")
            return
        method = msg.get("method")
        if method is None:
            self._response(msg)
            return
        params = msg.get("params") or {}
        kind = params.get("type", method)
        stream = streams.get(params.get("session_id", ""))
        if stream is None:
            self._other(t_ns, msg, kind)
        elif kind == "message.delta":
            payload = params.get("payload") or {}
            stream.on_delta(t_ns, str(payload.get("text", "")), len(line) + 1)
        elif kind in ("message.complete", "error"):
            stream.finish(params)
        else:
            self._other(t_ns, msg, kind)
