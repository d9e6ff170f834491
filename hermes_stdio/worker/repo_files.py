"""The files under a workspace, for finding one by name as a user types.

Contract: ``RepoFiles().listing(root)`` gives the paths of the files under
``root`` (relative to it, ``/``-separated) and whether the list was cut at
``MAX_FILES``. In a git work tree it is what ``git ls-files`` gives, tracked
and untracked files but not ignored ones; elsewhere (or when git fails, takes
over ``GIT_TIMEOUT_S`` or lists nothing, as in a folder the work tree
ignores, such as a virtualenv) a walk that leaves out hidden folders and the usual
build and dependency folders (``SKIPPED``), follows no symlinked folder and
stops after ``WALK_BUDGET_S`` (a home or ``/`` as the workspace), cut. A
listing is kept for ``TTL_S`` seconds, so that each keystroke of a name does
not walk the tree again (a file created meanwhile shows after that); at most
``KEPT`` roots are kept. It never raises: an unreadable tree lists what it can.
Safe from any thread.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_FILES = 50_000
GIT_TIMEOUT_S = 3.0
WALK_BUDGET_S = 1.0
TTL_S = 3.0
KEPT = 4
SKIPPED = frozenset(
    {"node_modules", "__pycache__", "venv", "dist", "build", "target", "site-packages"}
)


def _git_files(root: str) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            # A listing must never take the index lock from a git the user runs.
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None  # not a work tree
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return list(dict.fromkeys(n for n in names if n))  # a conflicted file is listed per stage


def _walked_files(root: str, clock: Callable[[], float]) -> tuple[list[str], bool]:
    found: list[str] = []
    deadline = clock() + WALK_BUDGET_S
    for top, dirs, files in os.walk(root, onerror=lambda _exc: None):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
        rel = os.path.relpath(top, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        found.extend(prefix + f for f in sorted(files))
        if len(found) > MAX_FILES or clock() > deadline:
            return found, True
    return found, False


class RepoFiles:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[float, list[str], bool]] = OrderedDict()

    def listing(self, root: str) -> tuple[list[str], bool]:
        now = self._clock()
        with self._lock:
            kept = self._kept.get(root)
            if kept is not None and now - kept[0] < TTL_S:
                self._kept.move_to_end(root)
                return kept[1], kept[2]
        files, cut = _git_files(root), False
        if not files:
            files, cut = _walked_files(root, self._clock)
        cut = cut or len(files) > MAX_FILES
        files = files[:MAX_FILES]
        with self._lock:
            self._kept[root] = (now, files, cut)
            self._kept.move_to_end(root)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return files, cut
