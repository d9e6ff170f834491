"""Helpers the FrameWriter tests share (tests/transport/test_transport_writer*.py)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from hermes_stdio.wire import Frame, FrameDecoder

WAIT = 10.0


class PipeReader:
    """Reads one pipe on a thread into a FrameDecoder until EOF."""

    def __init__(self, fd: int, *, start: bool = True) -> None:
        self.fd = fd
        self.decoder = FrameDecoder()
        self.events: list[object] = []
        self.raw = bytearray()
        self.eof = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        if start:
            self.thread.start()

    def _run(self) -> None:
        while data := os.read(self.fd, 1 << 16):
            self.raw += data
            self.events += self.decoder.feed(data)
        self.eof.set()

    def bodies(self) -> list[bytes]:
        assert all(isinstance(e, Frame) for e in self.events), self.events
        return [e.body for e in self.events]  # type: ignore[attr-defined]


class Pipe:
    def __init__(self) -> None:
        self.r, self.w = os.pipe()
        self._open = {self.r, self.w}

    def close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self._open):
            self.close(fd)


def until(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    """Bounded wait for a state change that has no event to wait on."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.001)
    return True
