"""A cron job never moves the worker's working directory.

hermes runs a ``no_agent`` job (a script, no agent) with the process's directory
changed to the job's ``workdir`` (``os.chdir`` in ``cron.scheduler.run_job``)
until the script ends, then changed back. The script does not see it: hermes
starts it in the scripts directory (``cwd=``) either way. But every session of
a worker shares the process's directory. Meanwhile, one without a workspace
would run its commands, resolve its files and name its diffs in the job's
workdir; and two such jobs at once could leave the worker there for good, since
each restores the directory it found.

Contract: ``install(scheduler)`` gives hermes' scheduler module an ``os`` whose
``chdir`` does nothing (all else is the real ``os``), once; it returns False,
changing nothing, when the module has no ``os``. A job's agent is not affected:
it gets its workdir as its session's workspace (``cron_methods``), not from the
process.
"""

from __future__ import annotations

from typing import Any


class _DirectoryKept:
    """``os``, except that ``chdir`` leaves the process where it is."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def chdir(self, path: object) -> None:
        del path

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def install(scheduler: Any) -> bool:
    real = getattr(scheduler, "os", None)
    if real is None:
        return False
    if not isinstance(real, _DirectoryKept):
        scheduler.os = _DirectoryKept(real)
    return True
