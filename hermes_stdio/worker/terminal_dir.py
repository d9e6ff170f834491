"""Where a session without a workspace works: the worker's terminal directory.

hermes runs its terminal and file tools, and takes the directory its system
prompt names and reads project context (``AGENTS.md``…) from, in
``TERMINAL_CWD`` when that is set, else in the process's directory (a
worker's: the profile's home). ``TERMINAL_CWD`` comes from the profile's
``terminal.cwd`` setting (hermes' terminal tool copies the ``terminal.*``
settings into the environment once per process) or its ``.env``. But while a
cron job with a ``workdir`` runs, hermes points ``TERMINAL_CWD`` at that
workdir for the whole process. And it saves the value to put back before it
waits for an earlier such job to end, so two at once could leave the worker in
the first one's workdir for good.

Contract:
- ``bridge(terminal_tool)`` copies the profile's ``terminal.*`` settings into
  the environment now, as hermes' terminal tool does at its first use (its
  private ``_ensure_terminal_env_bridged``; nothing without it): before any
  cron job can have set ``TERMINAL_CWD``.
- ``around_job(job)`` is entered around hermes' run of a cron job
  (``cron_cwd``): jobs with a ``workdir`` run one at a time within it, so each
  puts back the worker's value, and while one runs ``current()`` still gives
  the worker's directory.
- ``local()``: whether hermes' terminal backend (``TERMINAL_ENV``) runs
  commands on this machine. Another backend's ``TERMINAL_CWD`` names a
  directory in its sandbox, so there the worker leaves a session's directory
  to hermes.
- ``current()`` is ``TERMINAL_CWD`` as it is outside any job's run, ``~``
  expanded, when the backend is local and it names a directory; else the
  process's directory.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_one_at_a_time = threading.Lock()
# The worker's TERMINAL_CWD (None: unset) while a job with a workdir runs; else None.
_outside: tuple[str | None] | None = None


def local() -> bool:
    return os.environ.get("TERMINAL_ENV", "").strip().lower() in ("", "local")


def current() -> str:
    held = _outside
    raw = (held[0] if held is not None else os.environ.get("TERMINAL_CWD")) or ""
    if not local():
        raw = ""
    path = os.path.expanduser(raw.strip())
    return path if path and os.path.isdir(path) else os.getcwd()


def bridge(terminal_tool: Any) -> bool:
    ensure = getattr(terminal_tool, "_ensure_terminal_env_bridged", None)
    if not callable(ensure):
        return False
    ensure()
    return True


@contextmanager
def around_job(job: Any) -> Iterator[None]:
    global _outside
    if not (isinstance(job, dict) and str(job.get("workdir") or "").strip()):
        yield
        return
    with _one_at_a_time:
        _outside = (os.environ.get("TERMINAL_CWD"),)
        try:
            yield
        finally:
            _outside = None
