"""A push when the profiles a host may name change (``profile/listChanged``),
when a profile's cron jobs do (``cron/listChanged``), and when its
``config.yaml`` does (``config/changed``).

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
listed later is compared with none). With ``config_changed``, likewise
``config_changed(profile, version)`` for each profile whose ``config.yaml``
differs (``version``: the SHA-256 of its bytes; None once it is gone or is not a
regular file, which is never read).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from ..transport import dirwatch
from ..transport.profile_files import read_regular
from .profiles import Listing, listing

# What profile/list shows of a profile is read from these (.env and SOUL.md: its problem).
_FILES = frozenset({"config.yaml", "profile.yaml", ".env", "SOUL.md"})


JOBS = "jobs.json"


def digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's bytes; None for anything else (a FIFO
    would block the watch's thread for ever)."""
    raw = read_regular(path)
    return None if raw is None else hashlib.sha256(raw).hexdigest()


class ProfileWatch:
    def __init__(
        self,
        home: Path,
        announce: Callable[[], None],
        jobs_changed: Callable[[str], None] | None = None,
        config_changed: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self.home, self._announce, self._jobs_changed = home, announce, jobs_changed
        self._config_changed = config_changed
        self._lock = threading.Lock()
        self._last: Listing = []
        self._jobs: dict[str, str | None] = {}
        self._configs: dict[str, str | None] = {}
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
            jobs = self._digests(now, self._jobs_changed, Path("cron") / JOBS)
            moved = [name for name, new in jobs.items() if self._jobs.get(name) != new]
            configs = self._digests(now, self._config_changed, Path("config.yaml"))
            edited = [(n, new) for n, new in configs.items() if self._configs.get(n) != new]
            self._jobs, self._configs = jobs, configs
        if not announce:
            return
        if changed:
            self._announce()
        if (jobs_changed := self._jobs_changed) is not None:
            for name in moved:
                jobs_changed(name)
        if (config_changed := self._config_changed) is not None:
            for name, version in edited:
                config_changed(name, version)

    @staticmethod
    def _digests(now: Listing, wanted: object, file: Path) -> dict[str, str | None]:
        return {p.name: digest(Path(p.home) / file) for p in now} if wanted else {}

    def _matters(self, directory: str, entry: str, is_dir: bool) -> bool:
        if directory in self._cron_dirs:
            return entry == JOBS
        if directory == str(self.home):
            return entry in _FILES or entry in ("profiles", "cron")
        if directory == str(self.home / "profiles"):
            return True  # a profile made, removed or renamed
        return entry in _FILES or entry == "cron"
