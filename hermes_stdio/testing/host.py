"""A minimal host for tests and benchmarks: spawns ``hermes-stdio`` and speaks its wire.

Contract: ``HostClient`` starts the real binary with its own pipes, reads
frames on a thread with the sans-I/O decoder, and offers blocking helpers
whose waits are all bounded: ``request`` returns the result or raises
``RpcError`` (the error as received); ``wait_for`` returns the first queued
notification matching a predicate. Every message received is kept in
``received`` in arrival order, with the time it arrived.
"""

from __future__ import annotations

import itertools
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..transport.process import stop_child
from ..wire import (
    FrameDecoder,
    Notification,
    Response,
    RpcError,
    encode_frame,
    encode_notification,
    encode_request,
    parse_message,
)


class HostClient:
    def __init__(
        self,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        *,
        command: list[str] | None = None,
        stderr: int | None = None,
    ) -> None:
        argv = (command or [sys.executable, "-m", "hermes_stdio"]) + (args or [])
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.PIPE,
            env=env,
            bufsize=0,
            start_new_session=True,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._responses: dict[Any, queue.Queue[Response]] = {}
        self.notifications: queue.Queue[Notification] = queue.Queue()
        self.received: list[tuple[float, Any]] = []
        self.raw_frames: list[bytes] = []
        self.stderr_lines: list[str] = []
        self._stderr_cond = threading.Condition()
        self._reading = threading.Event()
        self._reading.set()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if self.proc.stderr is not None:
            threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- io ----------------------------------------------------------------

    def _read(self) -> None:
        assert self.proc.stdout is not None
        decoder = FrameDecoder()
        fd = self.proc.stdout.fileno()
        while True:
            self._reading.wait()
            data = os.read(fd, 1 << 16)
            if not data:
                break
            for event in decoder.feed(data):
                body = getattr(event, "body", None)
                if body is None:
                    self.stderr_lines.append(f"CLIENT FRAMING ERROR {event}")
                    continue
                self.raw_frames.append(body)
                msg = parse_message(body)
                self.received.append((time.monotonic(), msg))
                if isinstance(msg, Response):
                    with self._lock:
                        q = self._responses.setdefault(msg.id, queue.Queue())
                    q.put(msg)
                elif isinstance(msg, Notification):
                    self.notifications.put(msg)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in iter(self.proc.stderr.readline, b""):
            text = line.decode(errors="replace").rstrip("\n")
            with self._stderr_cond:
                self.stderr_lines.append(text)
                self._stderr_cond.notify_all()
            if os.environ.get("HERMES_STDIO_TEST_STDERR"):
                print(text, file=sys.stderr)

    def wait_stderr(
        self, predicate: Callable[[str], bool], timeout: float = 10.0, count: int = 1
    ) -> str:
        """The ``count``-th stderr line matching ``predicate`` (stderr and the wire are
        not ordered)."""
        found: list[str] = []

        def match() -> bool:
            found[:] = [line for line in self.stderr_lines if predicate(line)][:count]
            return len(found) >= count

        with self._stderr_cond:
            if not self._stderr_cond.wait_for(match, timeout):
                raise TimeoutError(f"not {count} matching stderr lines in {timeout}s")
        return found[-1]

    def pause_reading(self) -> None:
        """Stop reading the server's stdout (after the current read), like a stalled host."""
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def write_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_body(self, body: bytes) -> None:
        self.write_raw(encode_frame(body))

    # --- rpc ---------------------------------------------------------------

    def send_request(self, method: str, params: Any = None, msg_id: Any = None) -> Any:
        msg_id = next(self._ids) if msg_id is None else msg_id
        with self._lock:
            self._responses.setdefault(msg_id, queue.Queue())
        self.send_body(encode_request(msg_id, method, params if params is not None else {}))
        return msg_id

    def response(self, msg_id: Any, timeout: float = 30.0) -> Response:
        with self._lock:
            q = self._responses.setdefault(msg_id, queue.Queue())
        try:
            return q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no response to {msg_id!r} in {timeout}s") from None

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> Any:
        resp = self.response(self.send_request(method, params), timeout)
        if resp.error is not None:
            raise RpcError.from_wire(resp.error)
        return resp.result

    def notify(self, method: str, params: Any = None) -> None:
        # exact: a host echoes ids as it got them ($/cancelRequest)
        self.send_body(
            encode_notification(method, params if params is not None else {}, exact=True)
        )

    def initialize(self) -> Any:
        result = self.request("initialize", {"protocolVersion": 1, "clientInfo": {"name": "tests"}})
        self.notify("initialized")
        return result

    def wait_for(
        self, predicate: Callable[[Notification], bool], timeout: float = 30.0
    ) -> Notification:
        """First notification matching ``predicate``; others stay visible in ``received``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching notification in {timeout}s")
            try:
                note = self.notifications.get(timeout=left)
            except queue.Empty:
                continue
            if predicate(note):
                return note

    def run_notifications(self, run_id: str) -> list[Notification]:
        return [
            m
            for _, m in self.received
            if isinstance(m, Notification) and m.params.get("runId") == run_id
        ]

    def wait_run_completed(self, run_id: str, timeout: float = 60.0) -> Notification:
        return self.wait_for(
            lambda n: n.method == "run/completed" and n.params.get("runId") == run_id, timeout
        )

    # --- teardown ----------------------------------------------------------

    def close(self, timeout: float = 20.0) -> int | None:
        """Close stdin (the supervisor exits on EOF), escalating with bounded waits."""
        stop_child(self.proc, grace_s=0.0, after_stdin_s=timeout)
        self._reader.join(5)
        return self.proc.returncode

    def __enter__(self) -> HostClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
