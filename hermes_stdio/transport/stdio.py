"""Take the process's stdio over for the wire.

Contract: ``take_over_stdio()`` returns private duplicates of fd 0 and fd 1
(not inherited by children) for the protocol, then points fd 0 at /dev/null
and fd 1 at stderr. After it, ``print()``, C extensions and child processes
writing to "stdout" land on stderr and nothing else can read the wire's input.
Never write the wire through ``sys.stdout``.

It also makes ``sys.stdout`` and ``sys.stderr`` never raise: when whoever
reads our stderr is gone (a host that crashed), a log line must not abort the
shutdown it is logging. ``restore_std_streams()`` puts those two streams back
after code that replaced them (hermes wraps them again on every turn).
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


_taken: tuple[TextIO, TextIO] | None = None


def restore_std_streams() -> bool:
    """Make ``sys.stdout``/``sys.stderr`` the streams ``take_over_stdio`` installed again;
    False when it never ran. hermes wraps both in a writer on each agent run and in a
    per-thread router for each background review, each time around the last one, so
    a long-lived worker would otherwise print through an ever longer chain of them."""
    if _taken is None:
        return False
    sys.stdout, sys.stderr = _taken
    return True


def take_over_stdio() -> tuple[int, int]:
    global _taken
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
    _taken = (sys.stdout, sys.stderr)
    return read_fd, write_fd
