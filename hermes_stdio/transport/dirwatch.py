"""A watch of some directories, calling back once a burst of changes that matter
has settled: inotify, on one daemon thread that sleeps in ``select`` while
nothing changes (no polling, no wake-ups).

Contract:
- ``DirWatch(matters, changed, name=..., quiet_s=..., longest_s=...)``:
  ``matters(directory, entry, is_dir)`` says whether an event counts
  (``entry`` is "" for an event on the directory itself); a queue overflow
  always counts. After one that counts, the thread waits until no event has
  come for ``quiet_s`` (at most ``longest_s`` after the first), then calls
  ``changed()`` (an editor's temp file and rename, or a tree copied in, is
  one change). What ``changed`` raises is logged.
- ``start()`` opens the instance and starts the thread; False (and nothing
  started) where inotify does not work: not Linux, or the user's limit of
  instances reached. ``stop()`` ends the thread (tests).
- ``watch(directories)`` makes the watched set exactly ``directories`` (any
  thread; a no-op before ``start()``) and returns whether one was newly
  watched, so a caller can look again at what it may have missed. A
  directory gone is skipped; one deleted and made again is watched anew. The
  first failure to add a watch (the user's watch limit) is logged, once.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable, Iterable

from . import inotify
from .log import log

QUIET_S = 0.05
LONGEST_S = 0.5
_MASK = (
    inotify.CREATE
    | inotify.DELETE
    | inotify.MOVED_FROM
    | inotify.MOVED_TO
    | inotify.CLOSE_WRITE
    | inotify.DELETE_SELF
    | inotify.MOVE_SELF
    | inotify.ONLYDIR
)


class DirWatch:
    def __init__(
        self,
        matters: Callable[[str, str, bool], bool],
        changed: Callable[[], None],
        *,
        name: str,
        quiet_s: float = QUIET_S,
        longest_s: float = LONGEST_S,
    ) -> None:
        self._matters, self._changed, self._name = matters, changed, name
        self._quiet_s, self._longest_s = quiet_s, longest_s
        self._lock = threading.Lock()
        self._ino: inotify.Inotify | None = None
        self._wds: dict[str, int] = {}
        self._paths: dict[int, str] = {}
        self._full = False  # a watch could not be added: logged once
        self._stop_r, self._stop_w = -1, -1

    def start(self) -> bool:
        try:
            self._ino = inotify.Inotify()
        except OSError:
            return False
        self._stop_r, self._stop_w = os.pipe()  # for stop(); not inherited
        threading.Thread(target=self._run, name=self._name, daemon=True).start()
        return True

    def stop(self) -> None:
        if self._stop_w >= 0:
            os.write(self._stop_w, b"x")
            os.close(self._stop_w)
            self._stop_w = -1

    def watch(self, directories: Iterable[str]) -> bool:
        ino = self._ino
        if ino is None:
            return False
        want = set(directories)
        added = False
        with self._lock:
            for path in [p for p in self._wds if p not in want]:
                gone = self._wds.pop(path)
                if gone not in self._wds.values():  # a symlink may share it
                    ino.rm_watch(gone)
                    self._paths.pop(gone, None)
            for path in want - self._wds.keys():
                try:
                    wd = ino.add_watch(path, _MASK)
                except OSError as exc:
                    if not self._full:
                        log(f"hermes-stdio: {path} and maybe more not watched: {exc}")
                    self._full = True
                    continue
                if wd is not None:
                    self._wds[path], self._paths[wd] = wd, path
                    added = True
        return added

    def _note(self, events: Iterable[inotify.Event]) -> bool:
        """Forget the watches the kernel dropped; True if an event counts."""
        counts = False
        for e in events:
            with self._lock:
                if e.mask & inotify.IGNORED:  # its directory went; one made again there
                    self._paths.pop(e.wd, None)  # needs a watch of its own
                    for dropped in [p for p, wd in self._wds.items() if wd == e.wd]:
                        del self._wds[dropped]
                    continue
                path = self._paths.get(e.wd)
            if e.mask & inotify.Q_OVERFLOW or (
                path is not None and self._matters(path, e.name, bool(e.mask & inotify.ISDIR))
            ):
                counts = True
        return counts

    def _run(self) -> None:
        ino = self._ino
        assert ino is not None
        try:
            while self._wait(None):
                if self._note(ino.read()):
                    self._settle(ino)
                    try:
                        self._changed()
                    except Exception as exc:
                        log(f"hermes-stdio: {self._name}: a change was not handled: {exc!r}")
        except OSError as exc:
            log(f"hermes-stdio: {self._name} ended: {exc}")
        finally:
            ino.close()
            os.close(self._stop_r)

    def _wait(self, timeout: float | None) -> bool:
        """Until events are queued (True), ``stop()`` or the timeout (False)."""
        assert self._ino is not None
        ready, _, _ = select.select([self._ino.fileno(), self._stop_r], [], [], timeout)
        return self._stop_r not in ready and bool(ready)

    def _settle(self, ino: inotify.Inotify) -> None:
        end = time.monotonic() + self._longest_s
        while (left := min(self._quiet_s, end - time.monotonic())) > 0 and self._wait(left):
            self._note(ino.read())
