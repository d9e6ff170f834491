"""CronJobs with a fake hermes cronjob tool: what hermes shows becomes CronJobInfo,
a refusal is CronRefused with hermes' reason, an id the profile lacks (or a name,
which hermes' tool would take) is UnknownCronJob before hermes is asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import cron as cr
from hermes_stdio.worker.cronjobs import (
    MAX_OUTPUT,
    CronJobs,
    CronRefused,
    RanNow,
    UnknownCronJob,
)

SHOWN = {
    "job_id": "abc123",
    "name": "standup",
    "skills": ["git"],
    "prompt_preview": "Summarise",
    "schedule": "0 9 * * *",
    "repeat": "forever",
    "deliver": "local",
    "next_run_at": "2026-12-06T09:00:00+00:00",
    "last_run_at": None,
    "last_status": None,
    "last_delivery_error": None,
    "enabled": True,
    "state": "scheduled",
    "paused_reason": None,
    "model": None,
}


class FakeTool:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answer: dict[str, Any] = {"success": True, "job": SHOWN, "jobs": [SHOWN]}

    def __call__(self, action: str, **args: Any) -> str:
        self.calls.append((action, args))
        return json.dumps(self.answer)


def jobs_with(stored: dict[str, dict[str, Any]]) -> tuple[CronJobs, FakeTool]:
    tool = FakeTool()
    return CronJobs(tool, lambda: list(stored.values()), lambda: Path("/nonexistent")), tool


def test_a_listed_job_takes_its_last_error_from_the_stored_record() -> None:
    jobs, tool = jobs_with({"abc123": {"id": "abc123", "last_error": "model timed out"}})
    [job] = jobs.listed()
    assert job == cr.CronJobInfo(
        job_id="abc123",
        name="standup",
        schedule="0 9 * * *",
        prompt="Summarise",
        skills=["git"],
        repeat="forever",
        deliver="local",
        enabled=True,
        state="scheduled",
        next_run_at="2026-12-06T09:00:00+00:00",
        last_run_at=None,
        last_status=None,
        last_error="model timed out",
        paused_reason=None,
        model=None,
        workdir=None,
        enabled_toolsets=None,
    )
    assert tool.calls == [("list", {"include_disabled": True})]


def test_a_create_passes_only_what_was_given() -> None:
    jobs, tool = jobs_with({})
    jobs.create(cr.CronCreateParams(schedule="every 1h", prompt="hi", repeat=2))
    assert tool.calls == [("create", {"schedule": "every 1h", "prompt": "hi", "repeat": 2})]


def test_an_update_passes_the_model_workdir_and_toolsets_given_even_empty_to_clear() -> None:
    jobs, tool = jobs_with({"abc123": {"id": "abc123"}})
    tool.answer = {
        "success": True,
        "job": {**SHOWN, "workdir": "/srv/app", "enabled_toolsets": ["terminal", "web"]},
    }
    shown = jobs.update(
        cr.CronUpdateParams(job_id="abc123", model="", workdir="/srv/app", enabled_toolsets=[])
    )
    assert tool.calls == [
        ("update", {"job_id": "abc123", "model": "", "workdir": "/srv/app", "enabled_toolsets": []})
    ]
    assert (shown.workdir, shown.enabled_toolsets) == ("/srv/app", ["terminal", "web"])


@pytest.mark.parametrize("job_id", ["nope", "standup"])
def test_an_id_the_profile_lacks_is_unknown_before_hermes_is_asked(job_id: str) -> None:
    jobs, tool = jobs_with({"standup": {"id": "abc123", "name": "standup"}})  # hermes: names too
    for act in (
        lambda: jobs.update(cr.CronUpdateParams(job_id=job_id, name="x")),
        lambda: jobs.pause(job_id, None),
        lambda: jobs.resume(job_id),
        lambda: jobs.remove(job_id),
    ):
        with pytest.raises(UnknownCronJob):
            act()
    assert tool.calls == []


def test_a_refusal_carries_hermes_reason_and_a_malformed_answer_is_a_refusal() -> None:
    jobs, tool = jobs_with({})
    tool.answer = {"success": False, "error": "Invalid schedule 'whenever'"}
    with pytest.raises(CronRefused, match="Invalid schedule"):
        jobs.create(cr.CronCreateParams(schedule="whenever", prompt="hi"))
    tool.answer = {"success": True}  # no job in it
    with pytest.raises(CronRefused):
        jobs.create(cr.CronCreateParams(schedule="1h", prompt="hi"))
    garbled = CronJobs(lambda **_: "not json", list, lambda: Path("/nonexistent"))
    with pytest.raises(CronRefused):
        garbled.listed()


def test_remove_gives_the_job_as_it_was() -> None:
    jobs, tool = jobs_with({"abc123": {"id": "abc123"}})
    assert jobs.remove("abc123").name == "standup"
    assert [action for action, _ in tool.calls] == ["list", "remove"]


def test_outputs_are_read_newest_first_bounded_and_only_from_the_jobs_directory(
    tmp_path: Path,
) -> None:
    root = tmp_path / "output"
    (root / "abc123").mkdir(parents=True)
    (root / "abc123" / "2026-12-04_09-00-00.md").write_text("older")
    (root / "abc123" / "2026-12-05_09-00-00.md").write_bytes(b"x" * (MAX_OUTPUT + 10))
    (root / "abc123" / ".output_tmp.tmp").write_text("being written")
    (tmp_path / "secret.md").write_text("not a job's")
    stored = {"abc123": {"id": "abc123"}, "..": {"id": ".."}}
    jobs = CronJobs(FakeTool(), lambda: list(stored.values()), lambda: root)
    newest, older = jobs.outputs("abc123", 5)
    assert (newest.saved_at, newest.truncated, len(newest.text)) == (
        "2026-12-05T09:00:00",
        True,
        MAX_OUTPUT,
    )
    assert (older.saved_at, older.text, older.truncated) == ("2026-12-04T09:00:00", "older", False)
    assert jobs.outputs("abc123", 1) == [newest]
    with pytest.raises(UnknownCronJob):  # a hand-edited store's id would climb out
        jobs.outputs("..", 5)


def test_a_paused_job_is_not_runnable_and_an_unknown_one_is_unknown() -> None:
    jobs, tool = jobs_with({"abc123": {"id": "abc123", "model": "m1"}, "p": {"id": "p"}})
    assert jobs.runnable("abc123")["model"] == "m1"
    jobs, tool = jobs_with({"p": {"id": "p", "enabled": False, "state": "paused"}})
    with pytest.raises(CronRefused, match="paused"):
        jobs.runnable("p")
    with pytest.raises(UnknownCronJob):
        jobs.runnable("nope")
    assert tool.calls == []


@pytest.mark.parametrize(
    ("shown", "ran"),
    [
        ({"executed": True, "execution_success": True}, RanNow(True, True, None)),
        (
            {"executed": True, "execution_success": False, "execution_error": "model down"},
            RanNow(True, False, "model down"),
        ),
        (
            {"executed": False, "execution_skipped": "Job is already being fired"},
            RanNow(False, False, "Job is already being fired"),
        ),
    ],
    ids=["ok", "failed", "skipped"],
)
def test_a_job_run_now_says_whether_hermes_ran_it_and_how_it_went(
    shown: dict[str, Any], ran: RanNow
) -> None:
    jobs, tool = jobs_with({"abc123": {"id": "abc123"}})
    tool.answer = {"success": True, "job": {**SHOWN, **shown}}
    assert jobs.run_now("abc123") == ran
    assert tool.calls == [("run", {"job_id": "abc123"})]


@pytest.mark.parametrize(
    ("attempt", "ran"),
    [
        ({"status": "completed", "error": None}, RanNow(True, True, None)),
        ({"status": "failed", "error": "model down"}, RanNow(True, False, "model down")),
        (None, RanNow(True, False, "failed")),
    ],
    ids=["completed", "failed", "no-entry"],
)
def test_a_job_hermes_removed_after_its_last_run_is_judged_by_its_ledger_entry(
    attempt: dict[str, Any] | None, ran: RanNow
) -> None:
    tool = FakeTool()
    asked: list[str] = []
    jobs = CronJobs(
        tool,
        lambda: [{"id": "abc123"}],
        lambda: Path("/nonexistent"),
        lambda job_id: asked.append(job_id) or attempt,  # type: ignore[func-returns-value]
    )
    # What hermes' tool answers for a job it removed: no status, no error.
    tool.answer = {"success": True, "job": {"job_id": "abc123", "executed": True}}
    assert jobs.run_now("abc123") == ran
    assert asked == ["abc123"]
