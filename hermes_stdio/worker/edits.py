"""What a file-edit tool call changed: the ``edits`` of its ``tool.completed``.

Contract: ``EditWatch(locate, root)`` watches one session's calls.
``locate(name, args)`` names the files a call will write (absolute paths;
none for a tool that edits no files) and ``root()`` is the directory diff
headers name files relative to (a file outside it as git names one:
its absolute path without the leading slash).
- ``before(call_id, name, args)``, as the call starts, reads each such file.
- ``after(call_id)``, as it ends, reads them again and gives one
  ``FileEdit`` per file that changed (``added``, ``updated`` or ``deleted``),
  in the order named, with its unified diff when both sides are UTF-8 text of
  at most ``MAX_FILE_BYTES`` and the diff is at most ``MAX_DIFF_CHARS``
  (else ``diff`` is None). A file that is not text is compared by its stat.
- Nothing blocks on a file: it is opened non-blocking and only a regular
  file's bytes are read (a FIFO's read would wait for a writer for ever).
- A file ``hidden(path)`` names (or that it cannot tell about) is compared by
  its stat only: its text is never read, so no diff carries it.
- Memory is bounded: at most ``MAX_FILES`` files per call, ``MAX_HELD_CHARS``
  of text kept for the calls in progress (a file past that is compared by its
  stat), and ``MAX_OPEN_CALLS`` calls in progress (past that, those whose end
  never came, after an interrupt, are forgotten).
- Nothing here raises: a locator that fails is logged once and watches nothing.

``read(path, limit)`` reads a file as a ``Seen`` (its text when it is UTF-8 of at
most ``limit`` bytes, else its stat); ``describe(path, was, now, root)`` gives
the ``FileEdit`` from one ``Seen`` to another, its headers naming the file as
``shown_as(path, root)`` does; ``resolve(path, task_id)`` resolves a path as
hermes' file tools do for a session, and ``hidden(path)`` says whether hermes'
agent may not read the file (``edit_proposals`` uses them too).

``for_session(session)`` is the watch hermes' own tools need:
``write_file`` and ``patch`` (its ``path``, or the files a V4A patch names),
resolved as hermes' file tools resolve them for the session, and
``skill_manage`` (the skill files hermes' TUI shows diffs of); hidden are the
files hermes' read deny-list keeps from its agent (``.env`` files, credential
stores; another profile's files, with ``fence``).
"""

from __future__ import annotations

import difflib
import os
import stat
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol.events import EditKind, FileEdit
from ..transport.log import log
from . import terminal_dir
from .state import Session

MAX_FILE_BYTES = 1024 * 1024
MAX_DIFF_CHARS = 256 * 1024
MAX_FILES = 100
MAX_HELD_CHARS = 16 * 1024 * 1024  # of text, the open calls' files together
MAX_OPEN_CALLS = 64
_NO_NEWLINE = "\n\\ No newline at end of file\n"  # as diff and git mark a last line

Locate = Callable[[str, dict[str, Any]], Sequence[str]]


def _never(path: str) -> bool:
    return False


@dataclass(frozen=True)
class Seen:
    """A file as read: ``text`` when it is small UTF-8 text, else its ``stat``."""

    exists: bool
    text: str | None = None
    stat: tuple[int, ...] | None = None


_MISSING = Seen(exists=False, text="")


def read(path: str, limit: int = MAX_FILE_BYTES) -> Seen:
    """The file at ``path``: its text when it is UTF-8 of at most ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in it
        return _MISSING
    except OSError:
        return Seen(exists=os.path.lexists(path))
    try:
        st = os.fstat(fd)
        sig = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return Seen(exists=True, stat=sig)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        if len(data) > limit:
            return Seen(exists=True, stat=sig)
        return Seen(exists=True, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return Seen(exists=True, stat=sig)
    except OSError:
        return Seen(exists=True)
    finally:
        os.close(fd)


class EditWatch:
    def __init__(
        self, locate: Locate, root: Callable[[], str], hidden: Callable[[str], bool] = _never
    ) -> None:
        self._locate = locate
        self._root = root
        self._hidden = hidden
        self._lock = threading.Lock()
        self._open: dict[str, tuple[list[tuple[str, Seen, int]], int]] = {}
        self._held = 0  # characters of text the open calls keep
        self._failed = False

    def before(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        paths = self._paths(name, args)
        if not paths:
            return
        with self._lock:
            room = MAX_HELD_CHARS - self._held
        seen = []
        for path in paths:
            limit = 0 if self._secret(path) else max(0, min(MAX_FILE_BYTES, room))
            was = read(path, limit)
            room -= len(was.text or "")
            seen.append((path, was, limit))  # read again with the same limit, to compare
        size = sum(len(was.text or "") for _path, was, _limit in seen)
        with self._lock:
            if len(self._open) >= MAX_OPEN_CALLS:
                self._open.clear()
                self._held = 0
            self._open[call_id] = (seen, size)
            self._held += size

    def after(self, call_id: str) -> list[FileEdit]:
        with self._lock:
            seen, size = self._open.pop(call_id, ([], 0))
            self._held -= size
        edits = []
        for path, was, limit in seen:
            now = read(path, limit)
            if now != was:
                edits.append(self._edit(path, was, now))
        return edits

    def _secret(self, path: str) -> bool:
        try:
            return bool(self._hidden(path))
        except Exception:  # cannot tell: its text stays unread
            return True

    def _paths(self, name: str, args: dict[str, Any]) -> list[str]:
        try:
            found = [os.fspath(p) for p in self._locate(name, args)]
        except Exception as e:  # hermes' helpers changed: no diffs, and the run goes on
            if not self._failed:
                self._failed = True
                log(f"worker: cannot tell which files {name} edits ({type(e).__name__}: {e})")
            return []
        return list(dict.fromkeys(found))[:MAX_FILES]

    def _edit(self, path: str, was: Seen, now: Seen) -> FileEdit:
        return describe(path, was, now, self._root())


def describe(path: str, was: Seen, now: Seen, root: str) -> FileEdit:
    """The change from ``was`` to ``now`` of the file at ``path``, its diff headers
    naming it relative to ``root``."""
    kind: EditKind = "added" if not was.exists else "deleted" if not now.exists else "updated"
    diff = None
    if was.text is not None and now.text is not None:
        shown = shown_as(path, root)
        lines = difflib.unified_diff(
            was.text.splitlines(keepends=True),
            now.text.splitlines(keepends=True),
            f"a/{shown}" if was.exists else "/dev/null",
            f"b/{shown}" if now.exists else "/dev/null",
        )
        diff = "".join(line if line.endswith("\n") else line + _NO_NEWLINE for line in lines)
        diff = diff if len(diff) <= MAX_DIFF_CHARS else None
    return FileEdit(path=path, kind=kind, diff=diff)


def shown_as(path: str, root: str) -> str:
    """``path`` as diff headers name it: relative to ``root``, or absolute without its
    leading slash when outside it (as git names such a path)."""
    # hermes resolves links in the paths it writes: the workspace's are resolved too
    rel = os.path.relpath(path, os.path.realpath(root)) if os.path.isabs(path) else path
    return path.lstrip("/") if rel == ".." or rel.startswith("../") else rel


def for_session(session: Session) -> EditWatch:
    task_id = session.session_id

    def locate(name: str, args: dict[str, Any]) -> Sequence[str]:
        if name not in ("write_file", "patch", "skill_manage"):
            return []

        def resolved(path: Any) -> list[str]:
            ok = isinstance(path, str) and path
            return [resolve(path, task_id)] if ok else []

        if name == "skill_manage":
            from agent.display import _resolve_skill_manage_paths

            return [str(p) for p in _resolve_skill_manage_paths(args)]
        if name == "patch" and args.get("mode") == "patch":
            from tools.patch_parser import parse_v4a_patch

            ops, _error = parse_v4a_patch(str(args.get("patch") or ""))
            return [p for op in ops for n in (op.file_path, op.new_path) for p in resolved(n)]
        return resolved(args.get("path"))

    return EditWatch(locate, lambda: session.workspace or terminal_dir.current(), hidden)


def resolve(path: str, task_id: str) -> str:
    """``path`` as hermes' file tools resolve it for the task ``task_id`` (a
    session's, a subagent's)."""
    from tools import file_tools

    return str(file_tools._resolve_path_for_task(path, task_id))


def hidden(path: str) -> bool:
    """Whether hermes' agent may not read the file (a .env), fence included."""
    from agent import file_safety

    return file_safety.get_read_block_error(path) is not None
