"""No session of a worker is ever taken for a cron job by hermes' approvals.

hermes marks a process as a cron scheduler by setting ``HERMES_CRON_SESSION=1``
in ``os.environ`` when it runs a cron job (``cron.scheduler.run_job``), and
never unsets it: "every job this process runs is a cron job". Its approvals
then follow ``approvals.cron_mode`` instead of asking: ``deny`` refuses, and
``approve`` runs, what would have been asked about. In a worker, a job runs
when an agent's ``cronjob`` tool runs one now, within a host's turn; from then
on every session of that worker would have been taken for a cron job: its
``execute_code`` run with no ``approval/requested`` under ``cron_mode:
approve`` (or refused under ``deny``). The variable could also come from the
environment or the profile's ``.env``.

Contract: ``install(hermes_approval)`` makes ``tools.approval`` read
``HERMES_CRON_SESSION`` as unset, whatever the environment says, so every
session of the worker, and a cron job run within a turn, is asked about as the
turn's own tools are (or refused where no host can be asked). It returns
False, changing nothing but a line on stderr, when the module does not read it
the way this was written against (``env_var_enabled``, imported into it).
"""

from __future__ import annotations

from typing import Any

from ..transport.log import log

CRON_FLAG = "HERMES_CRON_SESSION"


def install(hermes_approval: Any) -> bool:
    read = getattr(hermes_approval, "env_var_enabled", None)
    if not callable(read):
        log("worker: hermes' approvals changed: a cron job it runs may stop later asks")
        return False
    if getattr(read, "_hermes_stdio_cron_guard", False):
        return True  # installed already

    def env_var_enabled(name: str, *args: Any, **kwargs: Any) -> bool:
        if name == CRON_FLAG:
            return False
        return bool(read(name, *args, **kwargs))

    env_var_enabled._hermes_stdio_cron_guard = True  # type: ignore[attr-defined]
    hermes_approval.env_var_enabled = env_var_enabled
    return True
