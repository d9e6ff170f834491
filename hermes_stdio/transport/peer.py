"""A JSON-RPC peer over a pair of file descriptors.

Contract:
- A reader thread turns bytes into messages with the sans-I/O core. With
  ``relay=(accept, sink)``, frames ``accept`` claims skip parsing and reach
  ``sink`` in batches, one per read, in wire order. Responses
  resolve pending requests (callbacks run on the reader thread and must not
  block); requests and notifications go to the ``handler``, also on the reader
  thread: handlers hand slow work to other threads.
- Bad frames and bad envelopes are answered (-32700/-32600/-32602,
  message_too_large with id null) when ``answer_invalid`` is set, and always
  logged to stderr; decoding then goes on. A fatal framing error closes the peer.
- ``request()`` correlates by id and fails the callback with a named error on
  timeout (then sends ``$/cancelRequest`` for it, and drops its late answer
  quietly) or when the peer closes (``close_error``); ``cancel_remote`` sends
  that notification for a request still pending; ``in_flight`` counts the
  requests not answered yet and those whose answer's callback still runs
  (except a request sent with ``records=False``: its callback records nothing
  another thread reads, so it stops counting once answered).
  ``respond*`` and ``notify`` go through one ``FrameWriter`` (``handoff`` and
  ``linger_s`` are its options). With ``answer_limit`` (the other side's body
  limit), a result whose frame would be larger is answered ``message_too_large``
  instead: the other side would skip it unread and wait for an answer for good.
- With ``refuse_over``, a request is failed at once with ``overload_error``,
  and not queued, while more than that many bytes wait unwritten (``backlog``):
  a peer that stops reading costs its sender bounded memory, never a blocked
  thread. With ``owns_write_fd`` (it needs ``handoff``) the writer closes the
  write fd: in ``close_write`` or once the reader has finished.
- ``on_closed`` is called exactly once, after the last message was handled.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from typing import Any, Protocol

from ..wire import (
    ErrorType,
    Frame,
    FrameDecoder,
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    encode_error,
    encode_notification,
    encode_request,
    encode_result,
    parse_message,
)
from .log import log, report_error
from .timers import TIMERS, TimerHandle
from .writer import FrameWriter

ResponseCallback = Callable[[Response], None]


class PeerHandler(Protocol):
    def on_request(self, peer: Peer, request: Request) -> None: ...

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None: ...

    def on_closed(self, peer: Peer, reason: str) -> None: ...


class Peer:
    def __init__(
        self,
        name: str,
        read_fd: int,
        write_fd: int,
        handler: PeerHandler,
        *,
        max_body_bytes: int,
        answer_invalid: bool = True,
        max_pending_bytes: int = 16 * 1024 * 1024,
        relay: tuple[Callable[[bytes], bool], Callable[[list[bytes]], object]] | None = None,
        handoff: bool = False,
        linger_s: float = 0.0,
        refuse_over: int | None = None,
        owns_write_fd: bool = False,
        answer_limit: int | None = None,
    ) -> None:
        self.name = name
        self._answer_limit = answer_limit
        self._refuse_over = refuse_over
        self._read_fd = read_fd
        self._handler = handler
        self._answer_invalid = answer_invalid
        self._relay = relay
        self._decoder = FrameDecoder(max_body_bytes=max_body_bytes)
        self.writer = FrameWriter(
            write_fd,
            max_pending_bytes=max_pending_bytes,
            handoff=handoff,
            linger_s=linger_s,
            owns_fd=owns_write_fd,
        )
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        # id -> (callback, timeout, whether its callback counts in in_flight while it runs)
        self._pending: dict[RequestId, tuple[ResponseCallback, TimerHandle | None, bool]] = {}
        self._resolving = 0  # answers taken from _pending whose callback still runs
        self._abandoned: set[RequestId] = set()  # timed out; the other side may still answer
        self._closed = False
        self.close_error = RpcError(ErrorType.WORKER_CRASHED, f"{name} closed the connection")
        self.overload_error = RpcError(
            ErrorType.WORKER_OVERLOADED, f"{name} has not read what was already sent to it"
        )
        self._thread = threading.Thread(target=self._read_loop, name=f"read-{name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    # --- sending ---------------------------------------------------------

    def send_raw(self, body: bytes) -> bool:
        return self.writer.send(body)

    def notify(self, method: str, params: Any) -> bool:
        return self.writer.send(encode_notification(method, params))

    def respond(self, msg_id: RequestId | None, result: Any) -> bool:
        body = encode_result(msg_id, result)
        limit = self._answer_limit
        if limit is not None and len(body) > limit:  # skipped unread: waited for for good
            too_large = f"the answer is {len(body)} bytes, over the {limit}-byte body limit"
            return self.respond_error(msg_id, RpcError(ErrorType.MESSAGE_TOO_LARGE, too_large))
        return self.writer.send(body)

    def respond_error(self, msg_id: RequestId | None, error: RpcError | dict[str, Any]) -> bool:
        wire = error.to_wire() if isinstance(error, RpcError) else error
        return self.writer.send(encode_error(msg_id, wire))

    def request(
        self,
        method: str,
        params: Any,
        callback: ResponseCallback,
        *,
        timeout: float | None = None,
        records: bool = True,
    ) -> RequestId:
        msg_id = next(self._ids)
        if self._refuse_over is not None and self.writer.backlog > self._refuse_over:
            callback(Response(msg_id, None, self.overload_error.to_wire()))
            return msg_id
        timer = None
        if timeout is not None:
            timer = TIMERS.call_later(timeout, lambda: self._expire(msg_id, method, timeout))
        with self._lock:
            if self._closed:
                if timer:
                    timer.cancel()
                callback(Response(msg_id, None, self.close_error.to_wire()))
                return msg_id
            self._pending[msg_id] = (callback, timer, records)
        if not self.writer.send(encode_request(msg_id, method, params)):
            self._resolve(Response(msg_id, None, self.close_error.to_wire()))
        return msg_id

    def _expire(self, msg_id: RequestId, method: str, timeout: float) -> None:
        err = RpcError(
            ErrorType.WORKER_TIMEOUT, f"{self.name} did not answer {method} in {timeout:g}s"
        )
        with self._lock:
            waited = msg_id in self._pending
            if waited:
                self._abandoned.add(msg_id)  # its late answer is expected: drop it quietly
        self._resolve(Response(msg_id, None, err.to_wire()))
        if waited:
            self.notify("$/cancelRequest", {"id": msg_id})

    def cancel_remote(self, msg_id: RequestId) -> bool:
        """Tell the other side we no longer need the answer to our request ``msg_id``
        (it may skip work not started); its answer, when it comes, is still handled.
        False if it was not pending."""
        with self._lock:
            if msg_id not in self._pending:
                return False
        return self.notify("$/cancelRequest", {"id": msg_id})

    def _resolve(self, response: Response) -> None:
        with self._lock:
            entry = self._pending.pop(response.id, None) if response.id is not None else None
            counted = entry is not None and entry[2]
            if counted:
                self._resolving += 1
        if entry is None:
            with self._lock:
                late = response.id in self._abandoned
                self._abandoned.discard(response.id)
            if response.id is not None and not late:
                log(f"hermes-stdio: {self.name}: response for unknown id {response.id!r}")
            return
        callback, timer, _ = entry
        if timer is not None:
            timer.cancel()
        try:
            callback(response)
        finally:
            if counted:
                with self._lock:
                    self._resolving -= 1

    @property
    def backlog(self) -> int:
        """Bytes queued to the other side and not written yet."""
        return self.writer.backlog

    @property
    def pending_count(self) -> int:
        with self._lock:
            return len(self._pending)

    @property
    def in_flight(self) -> int:
        """Requests not answered yet, or whose answer's callback is still running (it
        may be recording what the answer created, such as a run's route)."""
        with self._lock:
            return len(self._pending) + self._resolving

    # --- receiving -------------------------------------------------------

    def _read_loop(self) -> None:
        reason = "end of input"
        try:
            while True:
                try:
                    data = os.read(self._read_fd, 1 << 16)
                except OSError as exc:
                    reason = f"read error: {exc}"
                    break
                if not data:
                    break
                if not self._feed(data):
                    reason = "too much invalid input"
                    break
        finally:
            self._finish(reason)

    def _feed(self, data: bytes) -> bool:
        batch: list[bytes] = []
        for event in self._decoder.feed(data):
            if isinstance(event, Frame):
                if self._relay is not None and self._relay[0](event.body):
                    batch.append(event.body)
                    continue
                if batch:  # keep wire order around a frame that takes the slow path
                    self._relay_batch(batch)
                    batch = []
                self._dispatch(event.body)
                continue
            log(f"hermes-stdio: {self.name}: framing: {event.kind}: {event.detail}")
            if event.fatal:
                return False
            if event.kind == "too_large" and self._answer_invalid:
                self.respond_error(None, RpcError(ErrorType.MESSAGE_TOO_LARGE, event.detail))
        if batch:
            self._relay_batch(batch)
        return True

    def _relay_batch(self, batch: list[bytes]) -> None:
        assert self._relay is not None
        self._relay[1](batch)

    def _dispatch(self, body: bytes) -> None:
        msg = parse_message(body)  # never raises
        try:
            if isinstance(msg, Response):
                self._resolve(msg)
            elif isinstance(msg, Request):
                self._handler.on_request(self, msg)
            elif isinstance(msg, Notification):
                self._handler.on_notification(self, msg, body)
            elif isinstance(msg, Invalid):
                log(f"hermes-stdio: {self.name}: invalid message: {msg.error.message}")
                if self._answer_invalid and not msg.is_notification:
                    self.respond_error(msg.id, msg.error)
        except Exception as exc:  # a handler bug must not kill the reader
            wire = report_error(exc)
            if isinstance(msg, Request):
                self.respond_error(msg.id, wire)

    def _finish(self, reason: str) -> None:
        with self._lock:
            self._closed = True
            pending = list(self._pending.items())
            self._pending.clear()
        for msg_id, (callback, timer, _) in pending:
            if timer is not None:
                timer.cancel()
            callback(Response(msg_id, None, self.close_error.to_wire()))
        if self.writer.owns_fd:  # nobody reads what we would write now
            self.writer.close()
        self._handler.on_closed(self, reason)

    def join(self, timeout: float) -> None:
        if self._thread is not threading.current_thread() and self._thread.is_alive():
            self._thread.join(timeout)

    def close_write(self) -> None:
        self.writer.close()
