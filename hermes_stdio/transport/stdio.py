"""Take the process's stdio over for the wire.

Contract: ``take_over_stdio()`` returns private duplicates of fd 0 and fd 1
(not inherited by children) for the protocol, then points fd 0 at /dev/null
and fd 1 at stderr. After it, ``print()``, C extensions and child processes
writing to "stdout" land on stderr and nothing else can read the wire's input.
Never write the wire through ``sys.stdout``.
"""

from __future__ import annotations

import contextlib
import os
import sys


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
    return read_fd, write_fd
