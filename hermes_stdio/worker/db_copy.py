"""SQLite databases copied as snapshots when hermes copies a profile's directory.

Why: hermes' ``export_profile`` copies a profile file by file
(``shutil.copytree``). A database a running worker writes meanwhile (its
``state.db``, in WAL mode) may then be packed as a main file and a ``-wal``
from two different moments: a checkpoint between the two copies tears it,
losing or corrupting what its sessions held. hermes' own ``hermes backup``
copies each ``*.db`` through SQLite's backup API for that reason
(``hermes_cli.backup._safe_copy_db``); this gives export the same.

Contract: inside ``snapshotting(copy_db)``, a ``shutil.copytree`` given no
``copy_function`` copies a ``*.db`` file through ``copy_db(src, dst)`` (True:
a consistent snapshot is at ``dst``, holding what its ``-wal`` held) and
leaves out its ``-wal``, ``-shm`` and ``-journal`` files; when ``copy_db``
returns False (not a database, or SQLite could not read it), the file and
those it left out are copied as they are, as before. Every other file is
copied with ``shutil.copy2``. On the way out ``shutil.copytree`` is what it
was. For a process of its own (``profile_admin``): it changes ``shutil`` for
every thread.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SIDECARS = ("-wal", "-shm", "-journal")


def _main_db(path: str) -> str | None:
    """The ``*.db`` file a sidecar belongs to, if ``path`` is one."""
    for suffix in SIDECARS:
        if path.endswith(".db" + suffix):
            return path[: -len(suffix)]
    return None


def _copier(copy_db: Callable[[Path, Path], bool]) -> Callable[[str, str], str]:
    def copy(src: str, dst: str) -> str:
        main = _main_db(src)
        if main is not None and os.path.isfile(main):
            return dst  # its database's snapshot holds it (or copies it, failing)
        if src.endswith(".db") and copy_db(Path(src), Path(dst)):
            shutil.copystat(src, dst)
            return dst
        shutil.copy2(src, dst)
        if src.endswith(".db"):  # copied as it is: its sidecars with it
            for suffix in SIDECARS:
                if os.path.isfile(src + suffix):
                    shutil.copy2(src + suffix, dst + suffix)
        return dst

    return copy


@contextlib.contextmanager
def snapshotting(copy_db: Callable[[Path, Path], bool]) -> Iterator[None]:
    real = shutil.copytree
    copy = _copier(copy_db)

    def copytree(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) < 3:  # copy_function is the third after src and dst
            kwargs.setdefault("copy_function", copy)
        return real(src, dst, *args, **kwargs)

    shutil.copytree = copytree
    try:
        yield
    finally:
        shutil.copytree = real
