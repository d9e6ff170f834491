"""A cron job hermes runs in a worker leaves the worker's other work where it was.

hermes' ``cron.scheduler.run_job`` was written for a gateway, which runs each
job on a thread of its own. In a worker it also runs within a turn (the
agent's ``cronjob`` tool) and beside other sessions, so four things reach
past the job:

- it runs a ``no_agent`` job (a script) with the process's directory changed
  to the job's ``workdir`` (``os.chdir``) until the script ends. The script
  does not see it (hermes starts it in the scripts directory), but every
  session of the worker shares the process's directory; and two such jobs at
  once could leave the worker in one's workdir for good, since each restores
  the directory it found;
- it points ``TERMINAL_CWD`` at a job's workdir for the whole process
  (``terminal_dir`` keeps the worker's value in reach meanwhile, and such
  jobs one at a time);
- it sets hermes' per-context session variables for the job (its id, key,
  platform, directory) and, once done, blanks them rather than put back what
  they were: a turn whose tool ran a job would go on without its session's
  identity (its commands' ``HERMES_SESSION_ID``, the key hermes files its
  sudo password under);
- it files where a session's commands ``cd``-ed (``terminal_tool``'s
  session cwd record) under the approval session key of the context, which a
  job run within a turn shares with the turn: the job's commands would start
  where the turn's last one ended, not in its workdir, and its ``cd`` would
  stay for the turn's later commands.

Contract: ``install(scheduler, approval, terminal_tool)`` gives hermes'
scheduler module an ``os`` whose ``chdir`` does nothing (all else is the real
``os``), and wraps its ``run_job`` so that each job runs within
``terminal_dir.around_job``, in a copy of the caller's context, and with no cd
record under the caller's approval session key (hermes' ``approval`` module;
the record is put back as it was once the job ends: meanwhile, another tool
call of the same turn would start from its default directory); once each
(False, changing nothing, when the module has neither). A job's agent does
not need the chdir: it gets its workdir from ``TERMINAL_CWD``, and a host's
``cron/run`` also makes it the workspace of the job's session
(``cron_methods``).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import terminal_dir

_MARK = "_hermes_stdio_cron_cwd"


class _DirectoryKept:
    """``os``, except that ``chdir`` leaves the process where it is."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def chdir(self, path: object) -> None:
        del path

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def install(scheduler: Any, approval: Any = None, terminal_tool: Any = None) -> bool:
    real = getattr(scheduler, "os", None)
    if real is not None and not isinstance(real, _DirectoryKept):
        scheduler.os = _DirectoryKept(real)
    run_job: Any = getattr(scheduler, "run_job", None)
    if callable(run_job) and not getattr(run_job, _MARK, False):
        scheduler.run_job = _contained(run_job, approval, terminal_tool)
    return real is not None or callable(run_job)


def _contained(run_job: Any, approval: Any, terminal_tool: Any) -> Any:
    @functools.wraps(run_job)
    def run_one(job: Any, *args: Any, **kwargs: Any) -> Any:
        with terminal_dir.around_job(job), _no_cd_record(approval, terminal_tool):
            return contextvars.copy_context().run(run_job, job, *args, **kwargs)

    setattr(run_one, _MARK, True)
    return run_one


@contextmanager
def _no_cd_record(approval: Any, terminal_tool: Any) -> Iterator[None]:
    current_key = getattr(approval, "get_current_session_key", None)
    names = ("get_session_cwd", "record_session_cwd", "clear_session_cwd")
    calls: list[Any] = [getattr(terminal_tool, name, None) for name in names]
    key = current_key(default="") if callable(current_key) else ""
    if not key or not all(callable(call) for call in calls):
        yield
        return
    get, record, clear = calls
    kept = get(key)
    clear(key)
    try:
        yield
    finally:
        clear(key)
        if kept:
            record(key, kept)
