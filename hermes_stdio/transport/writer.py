"""One writer per stream: frames never interleave, bursts leave in one syscall.

Contract:
- ``send(body)`` frames ``body`` and queues it; the calling thread becomes the
  writer when nobody else is writing and drains everything queued meanwhile in
  one ``os.write`` (no writer thread, so an idle stream costs no wake-ups).
- At most ``max_pending_bytes`` wait unwritten; past that, ``send`` blocks the
  producer until the reader catches up (backpressure, never drops). A wait
  re-checks every ``poll_s`` whether the stream closed.
- A write error closes the writer: ``send`` then returns False and
  ``on_error`` is called once. ``close()`` flushes nothing further.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable

from ..wire import encode_frame


class FrameWriter:
    def __init__(
        self,
        fd: int,
        *,
        max_pending_bytes: int = 16 * 1024 * 1024,
        on_error: Callable[[OSError], None] | None = None,
        poll_s: float = 1.0,
    ) -> None:
        self._fd = fd
        self._max = max_pending_bytes
        self._on_error = on_error
        self._poll_s = poll_s
        self._cond = threading.Condition()
        self._queue: deque[bytes] = deque()
        self._pending = 0
        self._writing = False
        self.closed = False
        self.frames_written = 0
        self.writes = 0

    def send(self, body: bytes) -> bool:
        frame = encode_frame(body)
        with self._cond:
            while self._pending > self._max and self._writing and not self.closed:
                self._cond.wait(self._poll_s)
            if self.closed:
                return False
            self._queue.append(frame)
            self._pending += len(frame)
            if self._writing:
                return True
            self._writing = True
        return self._drain()

    def _drain(self) -> bool:
        while True:
            with self._cond:
                if not self._queue or self.closed:
                    self._writing = False
                    self._cond.notify_all()
                    return not self.closed
                count = len(self._queue)
                batch = b"".join(self._queue) if count > 1 else self._queue[0]
                self._queue.clear()
            try:
                view = memoryview(batch)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                    self.writes += 1
            except OSError as exc:
                self._fail(exc)
                return False
            with self._cond:
                self._pending -= len(batch)
                self.frames_written += count
                self._cond.notify_all()

    def _fail(self, exc: OSError) -> None:
        with self._cond:
            already = self.closed
            self.closed = True
            self._writing = False
            self._queue.clear()
            self._cond.notify_all()
        if not already and self._on_error is not None:
            self._on_error(exc)

    def wait_idle(self, timeout: float) -> bool:
        """Wait (bounded) until everything queued has been written or the stream closed."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self.closed or not (self._queue or self._writing), timeout
            )

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._queue.clear()
            self._cond.notify_all()
