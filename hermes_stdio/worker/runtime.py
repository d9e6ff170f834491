"""Whether the hermes-agent a worker loaded is still the one on disk.

A worker imports hermes-agent once. If it is upgraded (``pip install -U``) or
its checkout changes while the worker runs, modules imported later would come
from the new version and mix with the old ones already loaded. So a worker
fails closed instead: new work gets ``agent_runtime_stale`` until the host
restarts it (``worker/restart``); nothing restarts by itself.

Contract: ``Fingerprint.of(paths)`` records each file's size, mtime and inode
(a file that cannot be stat'ed is recorded as missing); ``changed()`` names
the first file that differs now, or None; ``a + b`` watches both.
``loaded_files(module, dist)`` is what to watch: the loaded module's own file
and the installed distribution's METADATA (an upgrade replaces its
directory). ``preloaded_files(dist, modules)`` is the same for modules a
worker template imported before forking: the files of those that ``dist``
installs (by top-level name, ``top_level_names``) and its METADATA. Each
check is a few stats.

Where a distribution's METADATA is, is found once per process (reading its
RECORD: 10-15 ms for hermes-agent), and a forked worker inherits what its
template found. An upgrade moves METADATA to a new ``*.dist-info``
directory and a reinstall replaces the file, so the remembered path then
stats as missing or different: a change either way.
"""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType

_Stamp = tuple[int, int, int] | None


def _stamp(path: str) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


_METADATA: dict[str, str] = {}  # distribution name -> its METADATA path, once found


def _metadata(dist: str) -> list[str]:
    if dist in _METADATA:
        return [_METADATA[dist]]
    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return []
    meta = next((f for f in found.files or [] if f.name == "METADATA"), None)
    if meta is None:
        return []
    path = _METADATA[dist] = str(found.locate_file(meta))
    return [path]


def top_level_names(dist: str) -> set[str]:
    """Top-level module and package names ``dist`` installs."""
    try:
        files = importlib.metadata.distribution(dist).files or []
    except importlib.metadata.PackageNotFoundError:
        return set()
    tops = set()
    for f in files:
        top = str(f).split("/")[0]
        if top.endswith(".py"):
            top = top[:-3]
        if not top.endswith((".dist-info", ".data")) and top not in ("..", "__pycache__"):
            tops.add(top)
    return tops


def loaded_files(module: ModuleType, dist: str) -> list[str]:
    path = getattr(module, "__file__", None)
    return ([path] if path else []) + _metadata(dist)


def preloaded_files(dist: str, modules: Iterable[ModuleType]) -> list[str]:
    tops = top_level_names(dist)
    files = [
        path
        for m in modules
        if m.__name__.split(".")[0] in tops and (path := getattr(m, "__file__", None))
    ]
    return sorted(set(files)) + (_metadata(dist) if files else [])


@dataclass(frozen=True)
class Fingerprint:
    stamps: tuple[tuple[str, _Stamp], ...]

    @classmethod
    def of(cls, paths: list[str]) -> Fingerprint:
        return cls(tuple((p, _stamp(p)) for p in paths))

    def __add__(self, other: Fingerprint) -> Fingerprint:
        return Fingerprint(self.stamps + other.stamps)

    def changed(self) -> str | None:
        for path, then in self.stamps:
            if _stamp(path) != then:
                return path
        return None
