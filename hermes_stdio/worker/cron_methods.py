"""``cron/*`` requests: the profile's cron jobs, through hermes' ``cronjob`` tool.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): each request is answered off the reader (hermes reads
and writes ``cron/jobs.json`` under a file lock). A job id the profile does
not have is ``unknown_cron_job`` (``data.jobId``); a change hermes refuses is
``invalid_params`` with hermes' reason; an agent without cron jobs (the
synthetic one) is ``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import cron as cr
from ..protocol import types as t
from ..protocol.record import Record
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .cronjobs import CronJobs, CronRefused, UnknownCronJob
from .parts import answer_through

MAX_OUTPUTS = 50


class CronMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]

    def _cron(self, req: Request, act: Callable[[CronJobs], Record]) -> object:
        return answer_through(
            self.answer_off_reader, req, "cron jobs", self.adapter.cron_jobs, act, _refusal
        )

    def _h_cron_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._cron(req, lambda jobs: cr.CronListResult(jobs.listed()))

    def _h_cron_create(self, req: Request, p: cr.CronCreateParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.create(p)))

    def _h_cron_update(self, req: Request, p: cr.CronUpdateParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.update(p)))

    def _h_cron_pause(self, req: Request, p: cr.CronPauseParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.pause(p.job_id, p.reason)))

    def _h_cron_resume(self, req: Request, p: cr.CronJobParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.resume(p.job_id)))

    def _h_cron_remove(self, req: Request, p: cr.CronJobParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.remove(p.job_id)))

    def _h_cron_output(self, req: Request, p: cr.CronOutputParams) -> object:
        if not 1 <= p.limit <= MAX_OUTPUTS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"limit must be 1 to {MAX_OUTPUTS}",
                field="params.limit",
            )
        return self._cron(req, lambda jobs: cr.CronOutputResult(jobs.outputs(p.job_id, p.limit)))


def _refusal(exc: Exception) -> RpcError | None:
    if isinstance(exc, UnknownCronJob):
        return RpcError(ErrorType.UNKNOWN_CRON_JOB, f"no cron job {exc}", jobId=str(exc))
    if isinstance(exc, CronRefused):
        return RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params")
    return None
