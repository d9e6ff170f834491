"""Tests' view of ``flock``s held on a file: whether someone waits for one.

Contract: ``flock_waited(path, timeout)`` is True once ``/proc/locks`` shows a
process blocked on a ``flock`` of ``path``'s inode (Linux), False if none
shows within ``timeout`` seconds. A test holding a lock uses it to know that
the code under test reached that lock and waits there, with no sleep.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

_TICK_S = 0.005


def flock_waited(path: Path, timeout: float = 10.0) -> bool:
    st = os.stat(path)
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    deadline = time.monotonic() + timeout
    pause = threading.Event()  # never set: a bounded wait between two reads
    while True:
        with open("/proc/locks", encoding="ascii") as f:
            for line in f:
                fields = line.split()
                blocked = len(fields) > 6 and fields[1:3] == ["->", "FLOCK"]
                if blocked and fields[6] == inode:
                    return True
        if time.monotonic() >= deadline:
            return False
        pause.wait(_TICK_S)
