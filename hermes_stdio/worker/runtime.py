"""Whether the hermes-agent a worker loaded is still the one on disk.

A worker imports hermes-agent once. If it is upgraded (``pip install -U``) or
its checkout changes while the worker runs, modules imported later would come
from the new version and mix with the old ones already loaded. So a worker
fails closed instead: new work gets ``agent_runtime_stale`` until the host
restarts it (``worker/restart``); nothing restarts by itself.

Contract: ``Fingerprint.of(paths)`` records each file's size, mtime and inode
(a file that cannot be stat'ed is recorded as missing); ``changed()`` names
the first file that differs now, or None. ``loaded_files(module, dist)`` is
what to watch: the loaded module's own file and the installed distribution's
METADATA (an upgrade replaces its directory). Each check is a few stats.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass
from types import ModuleType

_Stamp = tuple[int, int, int] | None


def _stamp(path: str) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def loaded_files(module: ModuleType, dist: str) -> list[str]:
    path = getattr(module, "__file__", None)
    files = [path] if path else []
    try:
        found = importlib.metadata.distribution(dist)
        meta = next((f for f in found.files or [] if f.name == "METADATA"), None)
        if meta is not None:
            files.append(str(found.locate_file(meta)))
    except importlib.metadata.PackageNotFoundError:
        pass
    return files


@dataclass(frozen=True)
class Fingerprint:
    stamps: tuple[tuple[str, _Stamp], ...]

    @classmethod
    def of(cls, paths: list[str]) -> Fingerprint:
        return cls(tuple((p, _stamp(p)) for p in paths))

    def changed(self) -> str | None:
        for path, then in self.stamps:
            if _stamp(path) != then:
                return path
        return None
