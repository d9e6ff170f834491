"""A profile's files read as hermes reads them, and safely: only a regular file,
opened without blocking; YAML parsed as hermes' libyaml parses it.

Contract:
- ``read_regular(path, unless)`` gives a regular file's bytes, ``None`` for
  anything else (a FIFO swapped in after a check by name included).
- ``load_yaml(path)`` gives the file's mapping (empty when missing, not a
  regular file, or not a mapping) and why hermes could not use it: it nests too
  deeply to parse safely, is not UTF-8, is not YAML as libyaml reads it (which
  takes a tab PyYAML's own parser refuses), holds a value hermes' constructors
  refuse, or holds something other than a mapping (hermes then runs on its
  defaults); None when it can, or the file is missing. An unchanged file is
  parsed once (the mapping is shared, never to be changed); ``load_config`` is
  its mapping alone; ``parse_yaml(raw)`` is its answer for given bytes (never
  cached).
- ``not_regular(path)``: there (through symlinks) but not a regular file.
- ``signature(st)`` is what tells a file's versions apart by its ``stat``
  (device, inode, size, mtime, ctime); ``settled(st, now_ns)`` says whether it
  last changed long enough ago that a change within the clock's granularity
  cannot hide behind the same signature.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_regular(
    path: Path, unless: Callable[[os.stat_result], bool] | None = None
) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (``None`` otherwise, or when
    ``unless`` says so of its stat). Opened without blocking and checked on the
    open descriptor: a FIFO swapped in after a check by name would block the read
    for ever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (unless is not None and unless(st)):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError:
        return None
    finally:
        os.close(fd)


# Parsed YAML files by path, with the identity and times of the file parsed: a
# full hermes config.yaml (720 lines) takes PyYAML 30 ms, with the interpreter
# lock held, and profile/list reads every profile's. libyaml would take 4 ms, but
# it overflows its C stack on deep nesting (a hostile profile.yaml crashed the
# supervisor): not for files a profile can write.
_PARSED: dict[Path, tuple[tuple[int, ...], dict[str, Any], str | None]] = {}  # str: problem
_PARSED_LOCK = threading.Lock()
_PARSED_MAX = 256
# A file changed this recently may change again within the clock's granularity
# with the same size, unseen: it is parsed every time until it settles (as git
# treats a "racily clean" index entry).
_SETTLED_NS = 2_000_000_000


def signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def settled(st: os.stat_result, now_ns: int) -> bool:
    return now_ns - st.st_ctime_ns > _SETTLED_NS


def load_config(home: Path, name: str = "config.yaml") -> dict[str, Any]:
    """The YAML mapping in ``home/name``; empty when it is missing, not a regular
    file (a FIFO would block the read for ever), unreadable or not a mapping.
    An unchanged file is parsed once: the mapping is shared, never to be changed."""
    return load_yaml(home / name)[0]


# Nesting libyaml's composer (recursive, on the C stack) is let near: far below
# what overflows it, and about what PyYAML's pure Python parser follows.
_C_DEPTH = 200


def _where(exc: Exception) -> str:
    import yaml

    mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, yaml.MarkedYAMLError) and mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {exc.problem}"
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def _as_hermes_reads(text: str, failed: Exception) -> tuple[Any, str | None]:
    """What hermes, which reads with libyaml, makes of a file PyYAML failed on
    (libyaml takes a tab after a colon, say): the data, or why it fails. libyaml
    builds the data only once its parser (iterative) has found the nesting
    shallow enough for its composer."""
    import yaml

    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is None:  # hermes falls back to PyYAML too
        return {}, f"is not valid YAML ({_where(failed)})"
    depth = deepest = 0
    try:
        for event in yaml.parse(text, Loader=c_loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        if deepest > _C_DEPTH:
            return {}, "nests too deeply to be read safely"
        return yaml.load(text, Loader=c_loader), None
    except yaml.YAMLError as exc:
        return {}, f"is not valid YAML ({_where(exc)})"


def parse_yaml(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """``load_yaml``'s answer for a file holding ``raw``."""
    import yaml  # only when needed: keeps the supervisor's start-up light

    problem: str | None = None
    data: Any = {}
    try:
        text = raw.decode("utf-8")
        data = yaml.safe_load(text)
    except RecursionError:
        problem = "nests too deeply to be read safely"
    except UnicodeDecodeError as exc:
        problem = f"is not UTF-8 text (byte {exc.start})"
    except yaml.YAMLError as exc:
        data, problem = _as_hermes_reads(text, exc)
    except Exception as exc:  # a value its constructors refuse (a date in month 13)
        problem = f"is not YAML hermes can read ({type(exc).__name__}: {str(exc)[:200]})"
    if data and not isinstance(data, dict):  # hermes reads an empty document as {}
        problem = "holds no mapping of settings"
    if not isinstance(data, dict):
        data = {}
    return data, problem


def load_yaml(path: Path) -> tuple[dict[str, Any], str | None]:
    """``load_config``'s mapping, and why hermes could not use the file (it nests
    too deeply to parse safely, is not YAML in UTF-8, or holds something other
    than a mapping, which hermes ignores, running on its defaults); None when it
    can, or the file is missing."""
    with _PARSED_LOCK:
        kept = _PARSED.get(path)
    seen: list[os.stat_result] = []

    def unchanged(st: os.stat_result) -> bool:
        seen.append(st)
        return kept is not None and kept[0] == signature(st)

    raw = read_regular(path, unless=unchanged)
    if kept is not None and seen and kept[0] == signature(seen[0]):
        return kept[1], kept[2]
    if raw is None:
        return {}, None
    data, problem = parse_yaml(raw)
    st = seen[0]
    if settled(st, time.time_ns()):
        with _PARSED_LOCK:
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[path] = (signature(st), data, problem)
    return data, problem


def not_regular(path: Path) -> bool:
    """Whether ``path`` is there (through symlinks) but is not a regular file."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # missing, or a dangling symlink or loop: hermes' read fails fast
        return False
