"""Waiting for a process to end in tests, without polling.

Contract: ``wait_gone(pid, timeout)`` is True once ``pid`` has exited (at once
if there is no such process), False after ``timeout`` seconds; it waits on a
pidfd, so a zombie counts as exited.
"""

from __future__ import annotations

import os
import select


def wait_gone(pid: int, timeout: float) -> bool:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)
    finally:
        os.close(fd)
