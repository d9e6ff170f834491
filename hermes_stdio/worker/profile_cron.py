"""The profile's cron jobs for ``adapter.HermesAdapter``, through hermes' own functions.

Contract: ``HermesCron`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent under ``_import_lock``, and ``_scope``,
a session's scope: its approvals' session key, its secrets) and implements the
``contract.AgentAdapter`` cron methods:
- ``cron_jobs()``: ``cronjobs.CronJobs`` over hermes' ``cronjob`` tool, its
  stored jobs, its output directory and its ledger of executions;
- ``run_cron_job(session, jobs, job_id, watch)`` (``cron/run``, through the
  ``jobs`` the request was checked in) and ``fire_cron_job(session, due, job,
  watch)`` (``cron/tick``) run a job in the session's scope, its agents
  watched by ``watch`` (``cron_run``), the job's agent's sudo prompt (per
  thread in hermes) set on its own thread, so sudo is asked in the run as a
  turn's is;
- ``due_cron_jobs()``: ``cron_fire.DueJobs`` over hermes' tick lock, due jobs,
  claims, running set, ``run_one_job`` and ledger.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import cron_fire, cron_run, cronjobs
from .contract import CronRanNow
from .state import Session
from .sudo import SudoBridge


class HermesCron:
    _modules: Callable[[], Any]
    _scope: Callable[[Session], contextlib.AbstractContextManager[None]]
    _sudo: SudoBridge

    def _asks_on_thread(self, session: Session, watch: cron_run.Watch) -> None:
        """hermes runs the job's agent on a thread of its own, and its sudo prompt is
        per thread: the session's is set there too, so sudo is asked in the run."""
        from tools import terminal_tool

        @contextlib.contextmanager
        def sudo_here() -> Iterator[None]:
            terminal_tool.set_sudo_password_callback(self._sudo.callback(session))
            try:
                yield
            finally:
                terminal_tool.set_sudo_password_callback(None)

        watch.attach_thread(sudo_here)

    def cron_jobs(self) -> cronjobs.CronJobs:
        self._modules()
        from cron.executions import latest_execution
        from cron.jobs import get_cron_output_dir, load_jobs
        from tools.cronjob_tools import cronjob

        return cronjobs.CronJobs(cronjob, load_jobs, get_cron_output_dir, latest_execution)

    def run_cron_job(
        self, session: Session, jobs: cronjobs.CronJobs, job_id: str, watch: cron_run.Watch
    ) -> CronRanNow:
        return self._watched(session, watch, lambda: jobs.run_now(job_id))

    def due_cron_jobs(self) -> cron_fire.DueJobs:
        self._modules()
        from cron import executions, scheduler
        from cron.jobs import claim_job_for_fire, get_due_jobs
        from hermes_constants import get_hermes_home

        return cron_fire.DueJobs(
            # hermes' scheduler tick takes this lock (cron.scheduler._get_lock_paths)
            Path(get_hermes_home()) / "cron" / ".tick.lock",
            due=get_due_jobs,
            claim=claim_job_for_fire,
            running=scheduler.get_running_job_ids,
            run_one=scheduler.run_one_job,
            record=executions.create_execution,
            records=executions.list_executions,
        )

    def fire_cron_job(
        self, session: Session, due: cron_fire.DueJobs, job: dict[str, Any], watch: cron_run.Watch
    ) -> CronRanNow:
        return self._watched(session, watch, lambda: due.fire(job))

    def _watched(
        self, session: Session, watch: cron_run.Watch, run: Callable[[], cronjobs.RanNow]
    ) -> CronRanNow:
        """``run()`` in the session's scope, the agents it starts watched by ``watch``."""
        self._asks_on_thread(session, watch)
        with self._scope(session), cron_run.watching(watch):
            ran = run()
        return CronRanNow(ran.ran, ran.ok, ran.error, watch.outcome)
