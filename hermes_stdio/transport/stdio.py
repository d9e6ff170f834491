"""Take the process's stdio over for the wire.

Contract: ``take_over_stdio()`` returns private duplicates of fd 0 and fd 1
(not inherited by children) for the protocol, then points fd 0 at /dev/null
and fd 1 at stderr. After it, ``print()``, C extensions and child processes
writing to "stdout" land on stderr and nothing else can read the wire's input.
Never write the wire through ``sys.stdout``.

It also makes ``sys.stdout`` and ``sys.stderr`` never raise: when whoever
reads our stderr is gone (a host that crashed), a log line must not abort the
shutdown it is logging. Once installed, they are never replaced by this package:
``print()`` in another thread may hold them, borrowed (python/cpython#130163).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO, cast


class _NeverRaises:
    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def never_raises(stream: TextIO) -> TextIO:
    return stream if isinstance(stream, _NeverRaises) else cast(TextIO, _NeverRaises(stream))


def take_over_stdio() -> tuple[int, int]:
    read_fd = os.dup(0)
    write_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    # sys.stdout still writes to fd 1 (now stderr); make it line-buffered so logs interleave sanely.
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    sys.stdout = never_raises(sys.stdout)
    sys.stderr = never_raises(sys.stderr)
    return read_fd, write_fd
