"""The state of the files behind a profile's slash commands, and a watch that
reports it whenever it changes, whoever changed it.

A profile's commands (``command/list``) are its skills (each ``SKILL.md`` under
its skills directory and ``skills.external_dirs``), its skill bundles (the
``*.yaml`` / ``*.yml`` files of its bundles directory) and what ``config.yaml``
says of them (disabled skills, external directories). An agent changes them
with ``skill_manage``, the user with an editor or ``hermes skills install``.

Contract:
- ``Sources`` is where to look, as hermes-agent says (``sources()`` is called
  afresh for each scan: external directories follow ``config.yaml``).
- ``scan(sources, max_dirs)`` walks the skill roots as hermes' own scan does
  (following symlinks, leaving out ``excluded`` directories, and ``support``
  ones inside a skill) and returns the state's ``fingerprint`` (a digest of each
  file's path, size, times and inode: equal for equal files, whichever worker
  computes it) and the directories to watch, with what matters in each (the
  parents of the profile's own skills directory, bundles directory and
  ``config.yaml`` for those names only; not an external root's). At most
  ``max_dirs`` directories are walked, so a symlink loop or a vast external
  directory costs a bounded walk; what lies past that is neither in the state
  nor watched (``truncated``; the watch logs it once).
- ``CommandWatch(sources, report)``: ``check()`` scans and calls ``report(fp)``
  when the fingerprint differs from the last one reported (the first scan
  reports too: the supervisor takes it as the profile's starting state).
  Checks are serialized; a failing scan or report is logged, never raised.
- ``start()`` checks once, on the calling thread, then, where inotify works,
  keeps watching (``transport.dirwatch``): a ``SKILL.md``, a directory, a bundle file or
  ``config.yaml`` created, written, moved or deleted starts a check once the
  burst of changes has been quiet for ``quiet_s`` (at most ``longest_s`` after
  the first). Idle, its thread is blocked in ``select``: no wake-ups. Where
  inotify does not work (not Linux; the user's limit reached) only
  ``check()`` calls (after each ``skill_manage``) report changes; that is
  logged. ``stop()`` ends the thread (tests).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..transport import dirwatch
from ..transport.log import log

MAX_DIRS = 4096
SKILL_FILE = "SKILL.md"
_BUNDLE_SUFFIXES = (".yaml", ".yml")


class Sources(NamedTuple):
    roots: list[Path]  # the skills directory first, then the external ones
    bundles: Path | None
    config: Path | None
    excluded: frozenset[str]
    support: frozenset[str]


@dataclass
class Interest:
    """What matters in one watched directory."""

    tree: bool = False  # part of a skill root: SKILL.md files and subdirectories
    bundles: bool = False  # the bundles directory: its *.yaml / *.yml files
    names: set[str] = field(default_factory=set)  # these entries (a root, config.yaml)

    def covers(self, name: str, is_dir: bool) -> bool:
        if not name:
            return self.tree or self.bundles  # the directory itself moved or went
        if name in self.names:
            return True
        if self.tree and (name == SKILL_FILE or is_dir):
            return True
        return self.bundles and name.endswith(_BUNDLE_SUFFIXES)


class Scan(NamedTuple):
    fingerprint: str
    dirs: dict[str, Interest]
    truncated: bool = False  # max_dirs were walked before the end


def _stamp(digest: hashlib._Hash, path: str) -> None:
    try:
        st = os.stat(path)
    except OSError:
        return
    digest.update(
        f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n".encode()
    )


def scan(src: Sources, max_dirs: int = MAX_DIRS) -> Scan:
    digest = hashlib.sha256()
    dirs: dict[str, Interest] = {}

    def interest(path: Path | str) -> Interest:
        return dirs.setdefault(str(path), Interest())

    # Their creation, removal or replacement, seen from above: the profile's own
    # entries only. An external root's parent may be the user's busy home directory.
    for entry in (*src.roots[:1], src.bundles, src.config):
        if entry is not None:
            interest(entry.parent).names.add(entry.name)
    walked, truncated = 0, False
    for root in src.roots:
        for top, subdirs, files in os.walk(root, followlinks=True):
            walked += 1
            if walked > max_dirs:
                truncated = True
                break
            has_skill = SKILL_FILE in files
            subdirs[:] = sorted(
                d for d in subdirs if d not in src.excluded and not (has_skill and d in src.support)
            )
            interest(top).tree = True
            if has_skill:
                _stamp(digest, os.path.join(top, SKILL_FILE))
    if src.bundles is not None and src.bundles.is_dir():
        interest(src.bundles).bundles = True
        try:
            names = sorted(os.listdir(src.bundles))
        except OSError:
            names = []
        for name in names:
            if name.endswith(_BUNDLE_SUFFIXES):
                _stamp(digest, str(src.bundles / name))
    if src.config is not None:
        _stamp(digest, str(src.config))
    return Scan(digest.hexdigest()[:32], dirs, truncated)


class CommandWatch:
    def __init__(
        self,
        sources: Callable[[], Sources],
        report: Callable[[str], None],
        *,
        quiet_s: float = dirwatch.QUIET_S,
        longest_s: float = dirwatch.LONGEST_S,
        max_dirs: int = MAX_DIRS,
    ) -> None:
        self._sources, self._report, self._max_dirs = sources, report, max_dirs
        self._lock = threading.Lock()
        self._last: str | None = None
        self._interests: dict[str, Interest] = {}
        self._truncated = False  # a scan stopped at max_dirs: logged once
        self._dirs = dirwatch.DirWatch(
            self._matters,
            self.check,
            name="hermes-stdio-commands",
            quiet_s=quiet_s,
            longest_s=longest_s,
        )

    def start(self) -> None:
        if not self._dirs.start():
            log("worker: skill files are not watched (no inotify); only agents' changes are pushed")
        self.check()  # before any tool can change them: the state the changes start from

    def stop(self) -> None:
        self._dirs.stop()

    def check(self) -> None:
        with self._lock:
            try:
                found = self._scan_and_watch()
            except Exception as exc:  # a scan must never fail the caller
                log(f"worker: scanning the profile's skills failed: {exc!r}")
                return
            if found.fingerprint == self._last:
                return
            self._last = found.fingerprint
        try:
            self._report(found.fingerprint)
        except Exception as exc:
            log(f"worker: a change of the profile's slash commands was not reported: {exc!r}")

    def _scan_and_watch(self) -> Scan:
        # Watch, then look again: what a new directory got before its watch is seen.
        for _ in range(4):
            found = scan(self._sources(), self._max_dirs)
            if found.truncated and not self._truncated:
                log(f"worker: over {self._max_dirs} skill directories; those past them not seen")
            self._truncated = found.truncated
            self._interests = found.dirs
            if not self._dirs.watch(found.dirs):
                break
        return found

    def _matters(self, directory: str, entry: str, is_dir: bool) -> bool:
        want = self._interests.get(directory)
        return want is not None and want.covers(entry, is_dir)
