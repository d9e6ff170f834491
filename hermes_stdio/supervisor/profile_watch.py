"""A push when the profiles a host may name change (``profile/listChanged``),
and when one of a profile's files a host shows does: its cron jobs
(``cron/listChanged``), its ``config.yaml`` (``config/changed``), its ``.env``
(``env/changed``), its ``SOUL.md`` (``soul/changed``), its memory
(``memory/changed``), its sign-ins (``auth.json``: ``account/changed``).

A profile switcher would otherwise go stale when the user makes, removes or
renames a profile (``hermes profile create``), or changes the model, provider
or description ``profile/list`` shows for one; a panel of cron jobs, when an
agent schedules one or hermes' gateway runs one; a settings or memory screen,
when the user's editor or an agent changes what it shows.

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

With ``files``, a map from a file's path in a profile's home (``config.yaml``,
``cron/jobs.json``, ``memories/USER.md``: at most one directory deep) to a
callback, it also watches each listed home for those directories and those
directories for those files (hermes replaces each whole), and calls
``callback(profile, digest)`` for each profile whose file's content differs
from the last look (``digest``: the SHA-256 of its bytes; None once it is gone
or is not a regular file, which is never read; a profile listed later is
compared with none).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from ..transport import dirwatch
from ..transport.profile_files import read_regular
from .profiles import ACTIVE_FILE, Listing, listing

# What profile/list shows of a profile is read from these (.env and SOUL.md: its problem).
# The Hermes home's active_profile says which one is active (only the default's home has it).
_FILES = frozenset({"config.yaml", "profile.yaml", ".env", "SOUL.md", ACTIVE_FILE})


def digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's bytes; None for anything else (a FIFO
    would block the watch's thread for ever)."""
    raw = read_regular(path)
    return None if raw is None else hashlib.sha256(raw).hexdigest()


FileChanged = Callable[[str, str | None], None]


class ProfileWatch:
    def __init__(
        self,
        home: Path,
        announce: Callable[[], None],
        files: dict[str, FileChanged] | None = None,
    ) -> None:
        self.home, self._announce = home, announce
        self._files = dict(files or {})
        # The directories below a home that hold a watched file, and those files.
        self._below: dict[str, frozenset[str]] = {}
        for rel in self._files:
            parent, _, name = rel.rpartition("/")
            if parent:
                self._below[parent] = self._below.get(parent, frozenset()) | {name}
        self._lock = threading.Lock()
        self._last: Listing = []
        self._digests: dict[tuple[str, str], str | None] = {}  # (profile, file)
        self._sub_dirs: dict[str, frozenset[str]] = {}  # watched path -> its files
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
                self._sub_dirs = {
                    str(Path(h) / sub): names for h in homes for sub, names in self._below.items()
                }
                watched = [str(self.home), str(self.home / "profiles"), *homes, *self._sub_dirs]
                if not self._dirs.watch(watched):
                    break
            changed, self._last = now != self._last, now
            digests = {
                (p.name, rel): digest(Path(p.home) / rel) for p in now for rel in self._files
            }
            moved = [(key, new) for key, new in digests.items() if self._digests.get(key) != new]
            self._digests = digests
        if not announce:
            return
        if changed:
            self._announce()
        for (profile, rel), new in moved:
            self._files[rel](profile, new)

    def _matters(self, directory: str, entry: str, is_dir: bool) -> bool:
        if directory in self._sub_dirs:
            return entry in self._sub_dirs[directory]
        if directory == str(self.home / "profiles"):
            return True  # a profile made, removed or renamed
        # A profile's home (the default's is the Hermes home itself).
        return (
            entry in _FILES
            or entry in self._below
            or entry in self._files
            or (directory == str(self.home) and entry == "profiles")
        )
