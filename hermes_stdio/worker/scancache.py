"""Saved per-file verdicts, so a worker's start skips re-parsing unchanged files.

hermes-agent finds its tool modules at import by reading and ``ast.parse``-ing
every ``tools/*.py`` (~0.4 s of a ~1.5 s import here) to see which register
tools. The answer depends only on each file's content, so it can be kept the
way Python keeps bytecode: keyed by the file's size and mtime.

Contract:
- ``FileVerdicts(path, salt, owner)`` loads verdicts saved at ``path`` earlier,
  if that file is readable, well formed and was saved with the same ``salt``
  (what the verdict function itself depends on); anything else starts empty.
  ``owner`` is the file the verdicts serve (hermes' tool registry), if any.
- ``wrap(fn)`` returns a function that answers like ``fn(file)``: from a
  saved verdict when the file's size and mtime are the ones recorded, else by
  calling ``fn`` and recording the answer. A file that cannot be stat'ed is
  passed to ``fn`` and not recorded.
- ``save()`` writes the verdicts (atomically: a temp file, then a rename) if
  anything was recorded; it never raises. A cache that cannot be read or
  written costs speed, never correctness. A save also prunes the directory:
  another ``tool-scan-*.json`` whose owner no longer exists (that hermes
  install was removed) and a temp file over a day old (its writer died) are
  deleted. Saves are rare (a new install, or changed files), so starts from
  a warm cache pay nothing for it.
- ``serve_tool_scan(registry)`` wraps hermes' ``tools.registry`` scan
  function with verdicts saved under ``cache_dir`` (salted with hermes'
  version, the registry file and Python's version) and returns them to be
  saved after the import; None, leaving hermes to scan as it always does,
  when the scan function is not the one this was written against.
- ``cache_dir(environ)`` is ``$XDG_CACHE_HOME/hermes-stdio`` or
  ``~/.cache/hermes-stdio``; a relative ``XDG_CACHE_HOME`` is ignored (as the
  XDG spec says), and with no absolute home either there is no cache (None).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

_VERSION = 1
_SCAN_FILE = re.compile(r"tool-scan-[0-9a-f]{16}\.json")
_TEMP_AGE_S = 86_400.0


def cache_dir(environ: Mapping[str, str]) -> Path | None:
    xdg = environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "hermes-stdio"
    home = os.path.expanduser("~")  # "~" itself when there is no home to be found
    return Path(home) / ".cache" / "hermes-stdio" if os.path.isabs(home) else None


class FileVerdicts:
    def __init__(self, path: Path, salt: str, owner: Path | None = None) -> None:
        self.path = path
        self.salt = salt
        self.owner = owner
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._dirty = False
        self._files: dict[str, tuple[int, int, bool]] = self._load()

    def _load(self) -> dict[str, tuple[int, int, bool]]:
        try:
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != _VERSION or data.get("salt") != self.salt:
                return {}
            return {
                str(name): (int(size), int(mtime), value)
                for name, (size, mtime, value) in data["files"].items()
                if isinstance(value, bool)
            }
        except (OSError, ValueError, TypeError, AttributeError, KeyError):
            return {}

    def wrap(self, fn: Callable[[Path], bool]) -> Callable[[Path], bool]:
        def cached(file: Path) -> bool:
            try:
                st = os.stat(file)
            except OSError:
                return fn(file)
            key = str(file)
            with self._lock:
                saved = self._files.get(key)
            if saved is not None and saved[:2] == (st.st_size, st.st_mtime_ns):
                self.hits += 1
                return saved[2]
            value = fn(file)
            with self._lock:
                self._files[key] = (st.st_size, st.st_mtime_ns, bool(value))
                self._dirty = True
                self.misses += 1
            return value

        return cached

    def save(self) -> None:
        with self._lock:
            if not self._dirty:
                return
            payload: dict[str, Any] = {"version": _VERSION, "salt": self.salt}
            if self.owner is not None:
                payload["owner"] = str(self.owner)
            payload["files"] = self._files
            text = json.dumps(payload, sort_keys=True)
            self._dirty = False
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        prune(self.path.parent, keep=self.path)


def prune(where: Path, keep: Path) -> None:
    """Delete the verdicts of removed hermes installs, and dead writers' temp files."""
    try:
        names = os.listdir(where)
    except OSError:
        return
    now = time.time()
    for name in names:
        path = where / name
        if path == keep:
            continue
        with contextlib.suppress(OSError):
            if name.startswith(".tmp-"):
                if now - path.lstat().st_mtime > _TEMP_AGE_S:
                    path.unlink()
            elif _SCAN_FILE.fullmatch(name) and _orphaned(path):
                path.unlink()


def _orphaned(path: Path) -> bool:
    """Whether the file that ``path``'s verdicts serve is gone (unreadable: kept)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        owner = data.get("owner")
        if not isinstance(owner, str):  # saved before owners were: the salt names it
            owner = str(data["salt"]).split("|")[1]
    except (OSError, ValueError, TypeError, AttributeError, KeyError, IndexError):
        return False
    return os.path.isabs(owner) and not os.path.lexists(owner)


def serve_tool_scan(registry: Any) -> FileVerdicts | None:
    scan = getattr(registry, "_module_registers_tools", None)
    if not callable(scan) or getattr(scan, "__module__", None) != registry.__name__:
        return None  # missing, or already wrapped
    where = cache_dir(os.environ)
    if where is None:
        return None
    try:
        source = Path(registry.__file__ or "")
        st = source.stat()
        version = importlib.metadata.version("hermes-agent")
    except (OSError, ValueError, importlib.metadata.PackageNotFoundError):
        return None
    salt = f"{version}|{source}|{st.st_size}|{st.st_mtime_ns}|{sys.version}"
    digest = hashlib.sha256(str(source.parent).encode()).hexdigest()[:16]
    verdicts = FileVerdicts(where / f"tool-scan-{digest}.json", salt, source)
    registry._module_registers_tools = verdicts.wrap(scan)
    return verdicts
