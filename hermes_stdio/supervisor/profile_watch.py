"""A push when the profiles a host may name change: ``profile/listChanged``.

A profile switcher would otherwise go stale when the user makes, removes or
renames a profile (``hermes profile create``), or changes the model, provider
or description ``profile/list`` shows for one.

Contract: ``ProfileWatch(home, announce)``; ``start()`` reads the listing
(each profile ``profile/list`` gives, with its home, model, provider,
description and problem; not its worker count) and, where inotify works,
watches ``<home>`` for ``profiles`` and the files below, ``<home>/profiles``
for its entries, and each listed profile's home for its ``config.yaml``,
``profile.yaml``, ``.env`` and ``SOUL.md`` (so the sessions, logs and
databases in those homes wake nothing). Once a burst of changes has settled
(``transport.dirwatch``) it reads the listing again and calls ``announce()``
when it differs from the last one, then watches the homes now listed. It
returns False, watching nothing, where inotify does not work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from ..transport import dirwatch
from .profiles import Listing, listing

# What profile/list shows of a profile is read from these (.env and SOUL.md: its problem).
_FILES = frozenset({"config.yaml", "profile.yaml", ".env", "SOUL.md"})


class ProfileWatch:
    def __init__(self, home: Path, announce: Callable[[], None]) -> None:
        self.home, self._announce = home, announce
        self._lock = threading.Lock()
        self._last: Listing = []
        self._dirs = dirwatch.DirWatch(self._matters, self.check, name="hermes-stdio-profiles")

    def start(self) -> bool:
        if not self._dirs.start():
            return False
        self.check(announce=False)
        return True

    def stop(self) -> None:
        self._dirs.stop()

    def check(self, announce: bool = True) -> None:
        with self._lock:
            for _ in range(4):  # watch, then look again: a profile made meanwhile is seen
                now = listing(self.home)
                homes = [home for _, home, *_ in now]  # the default's is the home itself
                watched = [str(self.home), str(self.home / "profiles"), *homes]
                if not self._dirs.watch(watched):
                    break
            changed, self._last = now != self._last, now
        if changed and announce:
            self._announce()

    def _matters(self, directory: str, entry: str, is_dir: bool) -> bool:
        if directory == str(self.home):
            return entry in _FILES or entry == "profiles"
        if directory == str(self.home / "profiles"):
            return True  # a profile made, removed or renamed
        return entry in _FILES
