"""One writer per stream: frames never interleave, bursts leave in one syscall.

Contract:
- ``send(body)`` / ``send_many(bodies)`` frame and queue bodies; the calling
  thread becomes the writer when nobody else is writing and drains everything
  queued meanwhile in one ``os.write`` (no writer thread, so an idle stream
  costs no wake-ups).
- ``send_lazy(item)`` queues a ``LazyBody`` that is rendered only when it is
  written, by the single draining thread, in queue order (so a sequence number
  taken in ``render`` follows the wire order). ``merge_tail(owner, text)``
  appends text to the last queued item if it is still unwritten, belongs to
  ``owner`` and accepts it: consecutive deltas coalesce while the reader lags.
- At most ``max_pending_bytes`` wait unwritten; past that, senders block until
  the reader catches up (backpressure: pause the producer, never drop) and
  ``merge_tail`` refuses. A blocked sender re-checks every ``poll_s`` whether
  the stream closed.
- A lazy item whose ``render`` raises is dropped with a traceback on stderr
  and the stream goes on, rather than wedging every later frame.
- With ``handoff=True`` the fd is made non-blocking: when the reader lags and
  a write would block, a short-lived flusher thread takes over the draining
  and the sender returns at once, so the producer keeps running (and its
  deltas coalesce) until the queue limit pauses it. Use it only on an fd whose
  open file description nobody else shares (a worker's own pipe).
- With ``linger_s`` > 0, a lazy item whose stream (``item.last_written``,
  the time its owner's last item was rendered) wrote less than ``linger_s``
  ago waits, merging later deltas into it, until ``linger_s`` has passed
  since then: then the next send, or a timer, writes everything waiting in
  one batch. The timer's thread needs the interpreter lock, which a busy
  producer may hold for up to Python's switch interval (5 ms) before it must
  let go, so the producer writes the batch itself, on its own thread, when
  its delta (merged or queued) finds the oldest waiting item ``overdue_s``
  (``linger_s`` plus the switch interval) old: the timer should have run by
  then. A fast stream thus costs one write, and one wake-up of the reader,
  per ``linger_s`` to ``overdue_s`` rather than per delta; a stream slower
  than one item per ``linger_s`` is written at once, however
  many other streams share the writer. ``send``/``send_many`` never wait,
  and take what waits with them, in order. It needs ``handoff``: the timer
  thread that writes what waited must never block on a full pipe.
  ``merge_tail`` returns whether it took the text, written or not.
- A write error closes the writer: sends then return False and ``on_error``
  is called once. ``close()`` discards what is queued; with ``owns_fd`` (which
  needs ``handoff``) it also closes the fd, between two writes, so a flusher
  still waiting on the full pipe never writes to a number the fd's close freed
  for another file. ``backlog`` is how many bytes wait unwritten.
"""

from __future__ import annotations

import errno
import os
import select
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from ..wire import encode_frame
from .log import log_current_exception
from .timers import TIMERS, TimerHandle, Timers


class LazyBody(Protocol):
    size: int

    @property
    def last_written(self) -> float:
        """When an item of the same stream was last rendered (monotonic; 0: never)."""
        ...

    def render(self) -> bytes: ...

    def merge(self, owner: object, text: str) -> bool: ...


def _render(items: list[bytes | LazyBody]) -> tuple[memoryview, int]:
    frames: list[bytes] = []
    for item in items:
        if isinstance(item, bytes):
            frames.append(item)
            continue
        try:
            frames.append(encode_frame(item.render()))
        except Exception:  # one bad item must not wedge the stream: drop it, loudly
            log_current_exception()
    if len(frames) == 1:
        return memoryview(frames[0]), 1
    return memoryview(b"".join(frames)), len(frames)


class FrameWriter:
    def __init__(
        self,
        fd: int,
        *,
        max_pending_bytes: int = 16 * 1024 * 1024,
        on_error: Callable[[OSError], None] | None = None,
        poll_s: float = 1.0,
        handoff: bool = False,
        linger_s: float = 0.0,
        timers: Timers = TIMERS,
        owns_fd: bool = False,
    ) -> None:
        if linger_s > 0 and not handoff:
            raise ValueError("linger_s needs handoff=True (the timer thread must not block)")
        if owns_fd and not handoff:
            raise ValueError("owns_fd needs handoff=True (a close must not wait on a write)")
        self._fd = fd
        self.owns_fd = owns_fd
        self._fd_lock = threading.Lock()  # held across each write to an owned fd
        self._linger = linger_s
        # When a waiting batch is late: its linger, plus the longest a busy producer
        # keeps the interpreter lock from the timer's thread.
        self.overdue_s = linger_s + sys.getswitchinterval()
        self._timers = timers
        self._flush_timer: TimerHandle | None = None
        self._handoff = handoff
        if handoff:
            os.set_blocking(fd, False)
        self._max = max_pending_bytes
        self._on_error = on_error
        self._poll_s = poll_s
        self._cond = threading.Condition()
        self._queue: deque[bytes | LazyBody] = deque()
        self._pending = 0
        self._writing = False
        self.closed = False
        self.frames_written = 0
        self.writes = 0
        self.merged = 0

    @property
    def backlog(self) -> int:
        return self._pending

    def send(self, body: bytes) -> bool:
        return self._enqueue((encode_frame(body),), len(body))

    def send_many(self, bodies: Iterable[bytes]) -> bool:
        frames = [encode_frame(body) for body in bodies]
        return self._enqueue(frames, sum(len(f) for f in frames)) if frames else True

    def send_lazy(self, item: LazyBody) -> bool:
        return self._enqueue((item,), item.size, linger_from=item.last_written)

    def merge_tail(self, owner: object, text: str) -> bool:
        with self._cond:
            if self.closed or not self._queue or self._pending > self._max:
                return False
            tail = self._queue[-1]
            if isinstance(tail, bytes) or not tail.merge(owner, text):
                return False
            self._pending += len(text)
            self.merged += 1
            if not self._overdue():
                return True
            batch, size = self._take()
        view, count = _render(batch)
        self._drain(view, size, count)
        return True

    def _enqueue(
        self, items: Iterable[bytes | LazyBody], size: int, linger_from: float | None = None
    ) -> bool:
        with self._cond:
            while self._pending > self._max and self._writing and not self.closed:
                self._cond.wait(self._poll_s)
            if self.closed:
                return False
            if self._writing or (linger_from is not None and self._lingering(linger_from)):
                self._queue.extend(items)
                self._pending += size
                if not self._overdue():
                    return True
                batch, size = self._take()
            else:
                # Idle stream (the common case): we become the writer, taking first
                # whatever waits for the linger to pass.
                self._queue.extend(items)
                self._pending += size
                batch, size = self._take()
        view, count = _render(batch)
        return self._drain(view, size, count)

    def _take(self) -> tuple[list[bytes | LazyBody], int]:
        """Under the lock: become the writer of everything queued."""
        self._writing = True
        batch = list(self._queue)
        self._queue.clear()
        return batch, self._pending

    def _overdue(self) -> bool:
        """Under the lock: whether nobody is writing and the oldest waiting item has
        waited ``overdue_s`` (its timer's thread is kept from running)."""
        if self._writing or not self._queue or self._linger <= 0:
            return False  # one drainer at a time: a stalled writer's queue is its own
        head = self._queue[0]
        return (
            not isinstance(head, bytes) and head.last_written + self.overdue_s <= time.monotonic()
        )

    def _lingering(self, since: float) -> bool:
        """Under the lock: whether a lazy item whose stream wrote at ``since`` should
        wait; arms the flush if so."""
        left = since + self._linger - time.monotonic()
        if left <= 0 or self._linger <= 0:
            return False
        timer = self._flush_timer
        if timer is None or since + self._linger < timer.deadline:
            if timer is not None:
                timer.cancel()
            self._flush_timer = self._timers.call_later(left, self._flush_waiting)
        return True

    def _flush_waiting(self) -> None:
        """Timer: write what waited, unless a send or another writer already took it."""
        with self._cond:
            self._flush_timer = None
            if self._writing or self.closed or not self._queue:
                return
            head = self._queue[0]
            # A producer wrote what this was set for; what waits now has a linger of its own.
            if not isinstance(head, bytes) and self._lingering(head.last_written):
                return
            batch, size = self._take()
        view, count = _render(batch)
        self._drain(view, size, count)

    def _drain(self, view: memoryview, size: int, count: int, flusher: bool = False) -> bool:
        """Write ``view`` (``count`` frames, ``size`` pending bytes), then whatever was
        queued meanwhile, until the queue is empty. Only one thread drains at a time."""
        while True:
            try:
                while view:
                    try:
                        written = self._write(view)
                    except BlockingIOError:
                        if not flusher:  # hand the rest over; the producer goes on
                            threading.Thread(
                                target=self._drain,
                                args=(view, size, count, True),
                                name="flush",
                                daemon=True,
                            ).start()
                            return True
                        self._wait_writable()
                        continue
                    view = view[written:]
                    self.writes += 1
            except OSError as exc:
                self._fail(exc)
                return False
            with self._cond:
                self._pending -= size
                self.frames_written += count
                self._cond.notify_all()
                if not self._queue or self.closed:
                    self._writing = False
                    return not self.closed
                items = list(self._queue)
                self._queue.clear()
                size = self._pending  # everything queued now leaves in this batch
            # Rendered outside the lock, in order, by the only draining thread.
            view, count = _render(items)

    def _wait_writable(self) -> None:
        fd = self._fd
        if fd < 0:
            raise OSError(errno.EBADF, "the writer was closed")
        # An owned fd may be closed meanwhile: look again every poll_s. Any other
        # flusher sleeps until the reader takes something.
        select.select([], [fd], [], self._poll_s if self.owns_fd else None)

    def _write(self, view: memoryview) -> int:
        if not self.owns_fd:
            return os.write(self._fd, view)
        with self._fd_lock:
            if self._fd < 0:
                raise OSError(errno.EBADF, "the writer was closed")
            return os.write(self._fd, view)

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
        if self.owns_fd:
            with self._fd_lock:
                fd, self._fd = self._fd, -1
            if fd >= 0:
                os.close(fd)
