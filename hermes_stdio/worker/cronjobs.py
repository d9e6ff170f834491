"""The profile's cron jobs, listed and managed through hermes' own ``cronjob`` tool.

The tool's function is what an agent's ``cronjob`` call runs: it checks a
schedule, scans a prompt for injected instructions, and stores the job where
hermes' gateway fires it (``<profile>/cron/jobs.json``). Going through it, a
host's change is exactly an agent's.

Contract: ``CronJobs(cronjob, load_jobs, output_dir)`` over hermes'
``tools.cronjob_tools.cronjob``, ``cron.jobs.load_jobs`` (the stored records,
read once a request) and ``cron.jobs.get_cron_output_dir``:
- ``listed()`` gives every job of the profile, paused ones included.
- ``create``, ``update``, ``pause``, ``resume`` give the job as it is after;
  ``remove`` the job as it was.
- ``runnable(job_id)`` is the job as stored, unless it is paused
  (``CronRefused``); ``run_now(job_id)`` runs it at once through the tool's
  ``run`` (hermes claims it first, so a scheduler firing it meanwhile does not
  run it twice; its output is saved and its last run recorded): a ``RanNow``,
  whether hermes ran it, whether the job succeeded, and hermes' reason when
  not (from ``latest_attempt(job_id)``, hermes' ledger of cron executions,
  when the tool could not tell: it removes a job after its last run).
- ``outputs(job_id, limit)`` reads the job's saved outputs (hermes writes one
  file a run, named by its time), newest first, each at most ``MAX_OUTPUT``
  bytes; only from the job's own directory under the output directory.
- A job id that names no job raises ``UnknownCronJob`` (looked up by id only,
  where hermes' tool would also take a name); a change hermes refuses (a
  schedule it cannot parse, a prompt its scan blocks) raises ``CronRefused``
  with hermes' reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from ..protocol import cron as cr

MAX_OUTPUT = 256 * 1024


class UnknownCronJob(Exception):
    pass


class CronRefused(Exception):
    pass


class RanNow(NamedTuple):
    ran: bool
    ok: bool
    error: str | None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _info(shown: dict[str, Any], stored: dict[str, Any] | None) -> cr.CronJobInfo:
    """A job as hermes' tool shows it, with what only its stored record keeps."""
    stored = stored or {}
    return cr.CronJobInfo(
        job_id=str(shown.get("job_id", "")),
        name=str(shown.get("name", "")),
        schedule=str(shown.get("schedule", "")),
        prompt=str(shown.get("prompt_preview", "")),
        skills=[str(s) for s in shown.get("skills") or []],
        repeat=str(shown.get("repeat", "")),
        deliver=str(shown.get("deliver", "local")),
        enabled=bool(shown.get("enabled", True)),
        state=str(shown.get("state", "")),
        next_run_at=_text(shown.get("next_run_at")),
        last_run_at=_text(shown.get("last_run_at")),
        last_status=_text(shown.get("last_status")),
        last_error=_text(stored.get("last_error") or shown.get("last_delivery_error")),
        paused_reason=_text(shown.get("paused_reason")),
        model=_text(shown.get("model")),
        workdir=_text(shown.get("workdir")),
        enabled_toolsets=_toolsets(shown.get("enabled_toolsets")),
    )


def _toolsets(value: object) -> list[str] | None:
    return [str(v) for v in value] if isinstance(value, list) and value else None


class CronJobs:
    def __init__(
        self,
        cronjob: Callable[..., str],
        load_jobs: Callable[[], list[dict[str, Any]]],
        output_dir: Callable[[], Path],
        latest_attempt: Callable[[str], dict[str, Any] | None] = lambda _job_id: None,
    ) -> None:
        self._cronjob, self._load_jobs, self._output_dir = cronjob, load_jobs, output_dir
        self._latest_attempt = latest_attempt

    def _call(self, action: str, **args: Any) -> dict[str, Any]:
        try:
            answer = json.loads(self._cronjob(action=action, **args))
        except ValueError as exc:  # not what this was written against
            raise CronRefused(f"hermes' cronjob tool answered no JSON: {exc}") from exc
        if not isinstance(answer, dict) or not answer.get("success"):
            error = answer.get("error") if isinstance(answer, dict) else None
            raise CronRefused(str(error or f"hermes refused cron {action}"))
        return answer

    def _stored(self) -> dict[str, dict[str, Any]]:
        return {str(job.get("id")): job for job in self._load_jobs() if isinstance(job, dict)}

    def _known(self, job_id: str) -> dict[str, Any]:
        stored = self._stored().get(job_id)
        if stored is None:
            raise UnknownCronJob(job_id)
        return stored

    def _shown(self, answer: dict[str, Any]) -> cr.CronJobInfo:
        shown = answer.get("job")
        if not isinstance(shown, dict):
            raise CronRefused("hermes' cronjob tool gave no job")
        return _info(shown, self._stored().get(str(shown.get("job_id", ""))))

    def listed(self) -> list[cr.CronJobInfo]:
        listed = self._call("list", include_disabled=True).get("jobs") or []
        stored = self._stored()
        return [_info(job, stored.get(str(job.get("job_id", "")))) for job in listed]

    def create(self, p: cr.CronCreateParams) -> cr.CronJobInfo:
        return self._shown(self._call("create", **_changes(p)))

    def update(self, p: cr.CronUpdateParams) -> cr.CronJobInfo:
        self._known(p.job_id)
        return self._shown(self._call("update", job_id=p.job_id, **_changes(p)))

    def pause(self, job_id: str, reason: str | None) -> cr.CronJobInfo:
        self._known(job_id)
        return self._shown(self._call("pause", job_id=job_id, reason=reason))

    def resume(self, job_id: str) -> cr.CronJobInfo:
        self._known(job_id)
        return self._shown(self._call("resume", job_id=job_id))

    def remove(self, job_id: str) -> cr.CronJobInfo:
        self._known(job_id)
        was = next((job for job in self.listed() if job.job_id == job_id), None)
        if was is None:  # removed between the look and the listing
            raise UnknownCronJob(job_id)
        self._call("remove", job_id=job_id)
        return was

    def runnable(self, job_id: str) -> dict[str, Any]:
        stored = self._known(job_id)
        if not stored.get("enabled", True) or stored.get("state") == "paused":
            raise CronRefused(f"cron job {job_id} is paused: resume it first")
        return stored

    def run_now(self, job_id: str) -> RanNow:
        shown = self._call("run", job_id=job_id).get("job")
        shown = shown if isinstance(shown, dict) else {}
        if not shown.get("executed"):
            return RanNow(
                False, False, str(shown.get("execution_skipped") or "hermes did not run it")
            )
        if shown.get("execution_success"):
            return RanNow(True, True, None)
        # hermes judges by the job's record, which it removes after a job's last run:
        # its ledger entry for the attempt (it holds the job's claim till then) says.
        attempt = self._latest_attempt(job_id) or {}
        if attempt.get("status") == "completed" and not shown.get("execution_error"):
            return RanNow(True, True, None)
        error = shown.get("execution_error") or attempt.get("error") or shown.get("last_status")
        return RanNow(True, False, str(error or "failed"))

    def outputs(self, job_id: str, limit: int) -> list[cr.CronOutput]:
        self._known(job_id)
        root = Path(self._output_dir())
        where = root / job_id
        if where.parent != root or job_id in (".", ".."):  # an id from a hand-edited store
            raise UnknownCronJob(job_id)
        try:
            saved = sorted(where.glob("*.md"), key=lambda f: f.name, reverse=True)[:limit]
        except OSError:
            return []
        found = []
        for file in saved:
            try:
                with open(file, "rb") as f:
                    raw = f.read(MAX_OUTPUT + 1)
            except OSError:
                continue  # pruned by hermes meanwhile
            stamp = file.stem.replace("_", "T", 1).split("T")
            saved_at = f"{stamp[0]}T{stamp[1].replace('-', ':')}" if len(stamp) == 2 else file.stem
            text = raw[:MAX_OUTPUT].decode("utf-8", errors="replace")
            found.append(cr.CronOutput(saved_at, text, len(raw) > MAX_OUTPUT))
        return found


def _changes(p: cr.CronCreateParams | cr.CronUpdateParams) -> dict[str, Any]:
    """The tool's arguments a create or an update gives (absent ones left out)."""
    given = {
        "schedule": p.schedule,
        "prompt": p.prompt,
        "name": p.name,
        "repeat": p.repeat,
        "skills": p.skills,
        "deliver": p.deliver,
        "model": p.model,
        "workdir": p.workdir,
        "enabled_toolsets": p.enabled_toolsets,
    }
    return {k: v for k, v in given.items() if v is not None}
