"""Linux inotify, through ctypes: what a watch of a few directories needs, no more.

The worker's own interpreter may be hermes-agent's (``--agent-python``), where
only the standard library can be counted on, so this binds libc itself.

Contract:
- ``Inotify()`` opens an instance (close-on-exec, blocking reads); raises
  ``OSError`` where inotify is missing (not Linux) or the user's instance
  limit is reached. ``fileno()`` is its fd, for ``select``; ``close()`` ends it.
- ``add_watch(path, mask)`` returns the watch descriptor, or None when
  ``path`` is gone or not a directory (ONLYDIR); other failures (the user's
  watch limit: ENOSPC) raise ``OSError``. The kernel gives a path already
  watched its existing descriptor.
- ``rm_watch(wd)`` never raises (the watch may be gone with its directory).
- ``read()`` blocks until events are queued and returns them all:
  ``Event(wd, mask, cookie, name)``, ``name`` decoded as the filesystem does,
  "" for an event on the watched directory itself.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from typing import NamedTuple

CREATE = 0x100
DELETE = 0x200
DELETE_SELF = 0x400
MOVE_SELF = 0x800
CLOSE_WRITE = 0x8
MOVED_FROM = 0x40
MOVED_TO = 0x80
Q_OVERFLOW = 0x4000
IGNORED = 0x8000
ISDIR = 0x40000000
ONLYDIR = 0x1000000

_HEADER = struct.Struct("iIII")
_BUFFER = 64 * 1024


class Event(NamedTuple):
    wd: int
    mask: int
    cookie: int
    name: str


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "inotify_init1"):
        raise OSError(errno.ENOSYS, "inotify is not available here")
    return libc


class Inotify:
    def __init__(self) -> None:
        self._libc = _libc()
        fd = int(self._libc.inotify_init1(os.O_CLOEXEC))
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"inotify_init1: {os.strerror(err)}")
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def add_watch(self, path: str, mask: int) -> int | None:
        wd = int(self._libc.inotify_add_watch(self._fd, os.fsencode(path), mask))
        if wd >= 0:
            return wd
        err = ctypes.get_errno()
        if err in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
            return None
        raise OSError(err, f"inotify_add_watch {path}: {os.strerror(err)}")

    def rm_watch(self, wd: int) -> None:
        self._libc.inotify_rm_watch(self._fd, wd)

    def read(self) -> list[Event]:
        data = os.read(self._fd, _BUFFER)
        events, at = [], 0
        while at + _HEADER.size <= len(data):
            wd, mask, cookie, size = _HEADER.unpack_from(data, at)
            at += _HEADER.size
            raw = data[at : at + size].rstrip(b"\0")
            at += size
            events.append(Event(wd, mask, cookie, os.fsdecode(raw)))
        return events

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
