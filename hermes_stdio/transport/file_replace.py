"""A file replaced whole, at once, by one writer at a time: how hermes-stdio
writes a profile's ``config.yaml``, ``.env`` and ``SOUL.md``.

Contract:
- ``flocked(directory)`` holds an exclusive ``flock`` on the directory while
  its block runs, in a process and across processes (each holder opens the
  directory afresh, so threads of one process exclude each other too).
- ``replace_file(real, data, new_mode)`` writes ``data`` to a temporary file
  beside ``real`` (a path with no symlink left to resolve), flushed to disk
  with ``real``'s mode (``new_mode`` when there is no file yet), then renames
  it over ``real`` and syncs the directory: a reader sees the old file or the
  new one, never part of one. On failure the temporary file is removed and
  the error raised.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def flocked(directory: Path) -> Iterator[None]:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def replace_file(real: Path, data: bytes, new_mode: int) -> None:
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = new_mode
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(real.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
