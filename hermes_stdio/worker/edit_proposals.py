"""What a file-edit tool call would change, worked out before it runs, writing nothing.

Contract: ``propose(tool, args, task_id, root)`` for hermes' ``write_file`` or
``patch`` call gives one ``FileEdit`` per file the call would change, in the
order it names them (its ``diff`` as ``edits.describe`` makes it, headers
relative to ``root``), or raises ``Refused`` with the error hermes' tool would
give when the call cannot succeed (no path, no match for a replace, a V4A patch
that does not parse or apply), so nobody is asked about an edit that would fail.
Paths are resolved as hermes' file tools resolve them for the task
``task_id`` (the session's, or a subagent's own: ``edits.resolve``), and files
are read as ``edits.read`` reads them, on this machine.

- ``write_file``: the file becomes ``content``.
- ``patch``, mode ``replace``: hermes' own matcher (``fuzzy_find_and_replace``)
  on the file's text, its BOM dropped and its line endings kept, as hermes'
  tool does it.
- ``patch``, mode ``patch`` (V4A): hermes' own applier (``apply_v4a_operations``)
  run over files that only this call sees: reads come from the disk, or from
  what the patch wrote before; writes, deletes and moves are kept in memory.
- A file whose text cannot be read (not UTF-8, over 1 MiB, not a regular
  file) or that ``edits.hidden`` keeps from the agent is never read or shown:
  its edit has a null ``diff``, and a call that would need its text to work
  out the change is proposed with what is known (the files and their kinds),
  every ``diff`` null, since hermes' own tool may still succeed on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..protocol.events import EditKind, FileEdit
from .edits import MAX_FILE_BYTES, Seen, describe, hidden, read, resolve


class Refused(Exception):
    """The call would fail: its message is what hermes' tool would say."""


class _Unreadable(Exception):
    """A file the change depends on cannot be read as text."""


_BOM = "\ufeff"


def propose(tool: str, args: dict[str, Any], task_id: str, root: str) -> list[FileEdit]:
    def where(path: Any) -> str:
        if not isinstance(path, str) or not path:
            raise Refused("path required")
        return resolve(path, task_id)

    if tool == "write_file":
        content = args.get("content")
        if not isinstance(content, str):
            raise Refused("content required")
        path = where(args.get("path"))
        return [_edit(path, _seen(path), Seen(exists=True, text=content), root)]
    if tool == "patch" and args.get("mode", "replace") == "replace":
        return [_replace(where(args.get("path")), args, root)]
    if tool == "patch" and args.get("mode") == "patch":
        return _v4a(str(args.get("patch") or ""), lambda p: where(p), root)
    raise Refused(f"Unknown mode: {args.get('mode')}")


def _seen(path: str) -> Seen:
    if _secret(path):
        return Seen(exists=os.path.lexists(path))
    return read(path, MAX_FILE_BYTES)


def _secret(path: str) -> bool:
    try:
        return hidden(path)
    except Exception:  # cannot tell: its text stays unread
        return True


def _unmarked(text: str | None) -> str | None:
    return None if text is None else text.removeprefix(_BOM)


def _edit(path: str, was: Seen, now: Seen, root: str) -> FileEdit:
    if _secret(path):  # what it would hold is no more shown than what it holds
        now = Seen(exists=now.exists)
    return describe(path, was, now, root)


def _replace(path: str, args: dict[str, Any], root: str) -> FileEdit:
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        raise Refused("old_string and new_string required")
    was = _seen(path)
    if not was.exists:
        raise Refused(f"Failed to read file: {path}")
    if was.text is None:
        return _edit(path, was, Seen(exists=True), root)
    from tools import file_operations
    from tools.fuzzy_match import fuzzy_find_and_replace

    text = _unmarked(was.text) or ""
    changed, count, _strategy, error = fuzzy_find_and_replace(
        text, old, new, bool(args.get("replace_all", False))
    )
    if error or count == 0:
        raise Refused(error or f"Could not find match for old_string in {path}")
    ending = getattr(file_operations, "_detect_line_ending", lambda _text: None)(text)
    if ending:
        changed = file_operations._normalize_line_endings(changed, ending)
    return _edit(path, Seen(exists=True, text=text), Seen(exists=True, text=changed), root)


def _v4a(patch: str, where: Callable[[str], str], root: str) -> list[FileEdit]:
    from tools.patch_parser import OperationType, apply_v4a_operations, parse_v4a_patch

    ops, error = parse_v4a_patch(patch)
    if error:
        raise Refused(f"Failed to parse patch: {error}")
    files = _DryFiles(where)
    try:
        result = apply_v4a_operations(ops, files)
    except _Unreadable:
        kinds: dict[str, EditKind] = {}
        for op in ops:
            if op.operation == OperationType.MOVE and op.new_path:
                kinds[where(op.file_path)] = "deleted"
                kinds.setdefault(where(op.new_path), "added")
            else:
                gone = op.operation == OperationType.DELETE
                added = op.operation == OperationType.ADD
                kinds.setdefault(
                    where(op.file_path), "deleted" if gone else "added" if added else "updated"
                )
        return [FileEdit(path=path, kind=kind, diff=None) for path, kind in kinds.items()]
    if not result.success:
        raise Refused(result.error or "Patch failed")
    after = {path: Seen(now is not None, now or "") for path, now in files.after.items()}
    return [
        _edit(path, files.before[path], now, root)
        for path, now in after.items()
        if files.before[path] != now
    ]


class _DryFiles:
    """The file operations hermes' V4A applier calls, on files only it sees."""

    def __init__(self, where: Callable[[str], str]) -> None:
        self._where = where
        self.before: dict[str, Seen] = {}  # as read from the disk, by resolved path
        self.after: dict[str, str | None] = {}  # what the patch left (None: removed)

    def _now(self, path: str) -> str | None:
        full = self._where(path)
        if full in self.after:
            return self.after[full]
        if full not in self.before:
            was = _seen(full)  # without a BOM, as hermes' tool reads it
            self.before[full] = Seen(was.exists, _unmarked(was.text), was.stat)
        was = self.before[full]
        if was.exists and was.text is None:
            raise _Unreadable(full)
        return was.text if was.exists else None

    def _set(self, path: str, text: str | None) -> None:
        self._now(path)  # what it held first, for the diff
        self.after[self._where(path)] = text

    def read_file_raw(self, path: str) -> Any:
        from tools.file_operations import ReadResult

        text = self._now(path)
        if text is None:
            return ReadResult(error=f"File not found: {path}")
        return ReadResult(content=text, file_size=len(text.encode()))

    def write_file(self, path: str, content: str) -> Any:
        from tools.file_operations import WriteResult

        self._set(path, content)
        return WriteResult(bytes_written=len(content.encode()))

    def delete_file(self, path: str) -> Any:
        from tools.file_operations import WriteResult

        self._set(path, None)
        return WriteResult()

    def move_file(self, src: str, dst: str) -> Any:
        from tools.file_operations import WriteResult

        text = self._now(src)
        if text is None:
            return WriteResult(error=f"Source not found: {src}")
        self._set(dst, text)
        self._set(src, None)
        return WriteResult()
