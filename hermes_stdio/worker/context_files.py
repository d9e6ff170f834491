"""The files hermes reads into an agent's context, checked before it reads them.

Contract: ``check(home, workspace)`` raises ``ContextUnreadable`` naming the
first file hermes-agent may read into an agent's context that is there but is
neither a regular file nor a directory (a FIFO, a device, a socket; symlinks
are followed). It checks the profile's ``SOUL.md`` and ``memories/MEMORY.md``
and ``USER.md`` in ``home``. With a ``workspace`` (the directory hermes takes
project context from) it also checks ``AGENTS.md``, ``agents.md``,
``CLAUDE.md``, ``claude.md``, ``.cursorrules`` and ``.cursor/rules/*.mdc``
there. It costs a ``stat`` per name and one listing; it reads nothing.
``project_dir(workspace)`` is the directory hermes takes that context from for
a session: its workspace if given (the process's directory when that is not a
directory), else the worker's terminal directory (``terminal_dir.current()``).

Why: hermes checks these files with ``exists()`` and then reads them whole.
A FIFO blocks that read until something writes to it, so the run hangs past
any interrupt. A device may never end (``/dev/zero``). A directory makes
hermes' read fail, which hermes skips.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from . import terminal_dir

PROFILE_FILES = ("SOUL.md", "memories/MEMORY.md", "memories/USER.md")
WORKSPACE_FILES = ("AGENTS.md", "agents.md", "CLAUDE.md", "claude.md", ".cursorrules")
RULES = Path(".cursor", "rules")


class ContextUnreadable(Exception):
    """A file hermes would read into the agent's context would hang or never end."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is not a regular file (a FIFO or a device?): reading it into the"
            " agent's context would never finish; remove or replace it"
        )
        self.path = path


def check(home: Path, workspace: Path | None) -> None:
    for path in _candidates(home, workspace):
        if hangs(path):
            raise ContextUnreadable(path)


def project_dir(workspace: str | None) -> Path:
    if not workspace:
        return Path(terminal_dir.current())
    # hermes' resolve_context_cwd: a workspace that is gone means the process's directory
    return Path(workspace) if os.path.isdir(workspace) else Path.cwd()


def _candidates(home: Path, workspace: Path | None) -> list[Path]:
    found = [home / name for name in PROFILE_FILES]
    if workspace is not None:
        found += [workspace / name for name in WORKSPACE_FILES]
        try:
            names = sorted(os.listdir(workspace / RULES))
        except OSError:  # none, or not a directory: hermes reads nothing there
            names = []
        found += [workspace / RULES / n for n in names if n.endswith(".mdc")]
    return found


def hangs(path: Path) -> bool:
    """True when ``path`` is there but is neither a regular file nor a directory."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # absent, a dangling link, a loop: hermes skips it
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
