"""A push when the profiles a host may name change (``profile/listChanged``), and
when a profile's cron jobs do (``cron/listChanged``).

A profile switcher would otherwise go stale when the user makes, removes or
renames a profile (``hermes profile create``), or changes the model, provider
or description ``profile/list`` shows for one; a panel of cron jobs, when an
agent schedules one or hermes' gateway runs one.

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

With ``jobs_changed``, it also watches each listed home for ``cron`` and its
``cron`` directory for ``jobs.json`` (hermes' store of the profile's cron
jobs, which every writer replaces whole), and calls ``jobs_changed(profile)``
for each profile whose file's content differs from the last look (a profile
listed later is compared with none).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from ..transport import dirwatch
from .profiles import Listing, listing

# What profile/list shows of a profile is read from these (.env and SOUL.md: its problem).
_FILES = frozenset({"config.yaml", "profile.yaml", ".env", "SOUL.md"})


JOBS = "jobs.json"


def _jobs_digest(profile_home: str) -> str:
    """The content of a profile's cron/jobs.json; "" when it has none."""
    try:
        return hashlib.sha256((Path(profile_home) / "cron" / JOBS).read_bytes()).hexdigest()
    except OSError:
        return ""


class ProfileWatch:
    def __init__(
        self,
        home: Path,
        announce: Callable[[], None],
        jobs_changed: Callable[[str], None] | None = None,
    ) -> None:
        self.home, self._announce, self._jobs_changed = home, announce, jobs_changed
        self._lock = threading.Lock()
        self._last: Listing = []
        self._jobs: dict[str, str] = {}
        self._cron_dirs: frozenset[str] = frozenset()
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
                crons = [str(Path(h) / "cron") for h in homes] if self._jobs_changed else []
                self._cron_dirs = frozenset(crons)
                watched = [str(self.home), str(self.home / "profiles"), *homes, *crons]
                if not self._dirs.watch(watched):
                    break
            changed, self._last = now != self._last, now
            jobs = {p.name: _jobs_digest(p.home) for p in now} if self._jobs_changed else {}
            moved = [name for name, digest in jobs.items() if self._jobs.get(name, "") != digest]
            self._jobs = jobs
        if changed and announce:
            self._announce()
        if self._jobs_changed is not None and announce:
            for name in moved:
                self._jobs_changed(name)

    def _matters(self, directory: str, entry: str, is_dir: bool) -> bool:
        if directory in self._cron_dirs:
            return entry == JOBS
        if directory == str(self.home):
            return entry in _FILES or entry in ("profiles", "cron")
        if directory == str(self.home / "profiles"):
            return True  # a profile made, removed or renamed
        return entry in _FILES or entry == "cron"
