"""hermes' file checkpoints, for ``checkpoint/list``, ``checkpoint/diff`` and
``checkpoint/restore``.

hermes snapshots a project directory (into a git store under the profile's
home) before its agent changes files there, when the profile's
``checkpoints.enabled`` is set. Contract: each function takes hermes'
``CheckpointManager`` (built with the profile's settings; None when the agent
has none) and the project directory, which must be absolute
(``CheckpointRefused`` naming ``params.directory`` otherwise):
- ``listed``: the directory's checkpoints, newest first, with when each was
  taken in ms since the epoch.
- ``diffed``: a checkpoint against the directory's files now.
- ``restored``: puts the checkpoint's files back, the whole directory or one
  ``path`` inside it (one outside is refused, naming ``params.path``); hermes
  snapshots the files first, so a restore can itself be undone.
A checkpoint hermes cannot find or use is refused naming ``params.hash``, with
hermes' reason.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from ..protocol import checkpoints as c


class CheckpointRefused(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _directory(directory: str) -> str:
    if not os.path.isabs(directory):
        raise CheckpointRefused("params.directory", "directory must be an absolute path")
    return str(Path(directory).expanduser().resolve())


def _ms(stamp: Any) -> int | None:
    try:
        return int(datetime.fromisoformat(str(stamp)).timestamp() * 1000)
    except ValueError:
        return None


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def listed(mgr: Any, directory: str) -> c.CheckpointListResult:
    where = _directory(directory)
    if mgr is None:
        return c.CheckpointListResult(False, where, [])
    found = [
        c.CheckpointInfo(
            hash=str(entry.get("hash") or ""),
            short_hash=str(entry.get("short_hash") or ""),
            created_at=_ms(entry.get("timestamp")),
            reason=str(entry.get("reason") or ""),
            files_changed=_int(entry.get("files_changed")),
            insertions=_int(entry.get("insertions")),
            deletions=_int(entry.get("deletions")),
        )
        for entry in mgr.list_checkpoints(where)
    ]
    return c.CheckpointListResult(bool(mgr.enabled), where, found)


def _done(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict) or not result.get("success"):
        why = result.get("error") if isinstance(result, dict) else None
        raise CheckpointRefused("params.hash", str(why or "the checkpoint cannot be used"))
    return result


def diffed(mgr: Any, directory: str, commit: str) -> c.CheckpointDiffResult:
    where = _directory(directory)
    if mgr is None:
        raise CheckpointRefused("params.hash", "this agent keeps no checkpoints")
    result = _done(mgr.diff(where, commit))
    return c.CheckpointDiffResult(str(result.get("stat") or ""), str(result.get("diff") or ""))


def restored(mgr: Any, directory: str, commit: str, path: str | None) -> c.CheckpointRestoreResult:
    where = _directory(directory)
    if path is not None:
        inside = os.path.normpath(os.path.join(where, path))
        if os.path.isabs(path) or not inside.startswith(where + os.sep):
            raise CheckpointRefused("params.path", "path must be a file inside directory")
    if mgr is None:
        raise CheckpointRefused("params.hash", "this agent keeps no checkpoints")
    result = _done(mgr.restore(where, commit, file_path=path))
    return c.CheckpointRestoreResult(
        restored_to=str(result.get("restored_to") or commit[:8]),
        reason=str(result.get("reason") or ""),
        directory=where,
        path=path,
    )
