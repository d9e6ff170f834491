"""Firing a profile's due cron jobs as hermes' scheduler tick does (``cron/tick``).

hermes' gateway ticks each minute: under the profile's tick lock it takes the
jobs that are due and moves recurring ones' next run on, then runs each. Doing
the same steps through hermes' own functions, a worker's tick and a gateway's
never fire one job twice, and every choice of what is due (a missed run's
catch-up, a one-shot's grace) stays hermes'.

Contract: ``DueJobs(lock_path, due=, claim=, running=, run_one=, record=,
records=)`` over hermes' tick lock file (``<profile>/cron/.tick.lock``),
``cron.jobs.get_due_jobs``, ``cron.jobs.claim_job_for_fire``,
``cron.scheduler.get_running_job_ids`` and ``run_one_job``, and
``cron.executions.create_execution`` and ``list_executions``.
``claim(busy)`` takes the tick lock without waiting and gives None when another
holds it (a gateway ticking the profile, or another of its workers); else it
claims each due job not in ``busy`` (ids this worker runs now) nor running in
hermes' own scheduler here, and gives the records of those it won, in hermes'
order. hermes' claim is an at-most-once mark across processes that also moves
a recurring job's ``next_run_at`` on; a job claimed by another meanwhile (a
``cron/run``, an external scheduler) is left out. The lock is released before
any job runs, as the gateway's tick does.

``fire(job)`` runs one claimed job through hermes' ``run_one_job`` (run its
agent, save the output, deliver it, record its last run) and gives a
``RanNow`` from the attempt's own entry in hermes' ledger of cron executions
(written first, source ``hermes-stdio``): ok once hermes finished it
``completed``, else its error. Not from the job's record: hermes removes a job
whose last run that was.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from .cronjobs import RanNow

Job = dict[str, Any]


class DueJobs:
    def __init__(
        self,
        lock_path: Path,
        *,
        due: Callable[[], list[Job]],
        claim: Callable[[str], bool],
        running: Callable[[], Collection[str]],
        run_one: Callable[[Job], bool],
        record: Callable[..., Job],
        records: Callable[..., list[Job]],
    ) -> None:
        self._lock_path, self._due, self._claim, self._running = lock_path, due, claim, running
        self._run_one, self._record, self._records = run_one, record, records

    def claim(self, busy: Collection[str]) -> list[Job] | None:
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._lock_path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return None
            running = set(self._running()) | set(busy)
            won = []
            for job in self._due():
                job_id = job.get("id")
                if isinstance(job_id, str) and job_id not in running and self._claim(job_id):
                    won.append(job)
            return won
        finally:
            os.close(fd)  # and with it the lock

    def fire(self, job: Job) -> RanNow:
        job_id = str(job["id"])
        attempt = str(self._record(job_id, source="hermes-stdio")["id"])
        self._run_one(dict(job, execution_id=attempt))
        entry = next(
            (e for e in self._records(job_id=job_id, limit=50) if e.get("id") == attempt), {}
        )
        if entry.get("status") == "completed":
            return RanNow(True, True, None)
        return RanNow(True, False, str(entry.get("error") or "the cron job failed"))
