"""WorkerService cron/tick with a fake adapter: the answer lists a run for each job
claimed, before any of them reaches the wire; each run's run/started names its job;
jobs this worker runs now are not claimed again; another scheduler's tick makes the
answer busy; an agent without cron jobs is agent_unavailable."""

from __future__ import annotations

import threading
from typing import Any

from worker_service_helpers import WAIT, error_of

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.contract import CronRanNow, TurnOutcome
from hermes_stdio.worker.cron_run import Watch
from hermes_stdio.worker.state import Session


class Due:
    """The jobs ``claim`` gives (None: another holds the tick lock); records the busy
    ids it was told."""

    def __init__(self, jobs: list[dict[str, Any]] | None) -> None:
        self.jobs, self.told = jobs, []

    def claim(self, busy: set[str]) -> list[dict[str, Any]] | None:
        self.told.append(set(busy))
        return None if self.jobs is None else [j for j in self.jobs if j["id"] not in busy]


def wire(harness: Any, due: Due, outcome: Any) -> None:
    harness.adapter.due_cron_jobs = lambda: due

    def fire_cron_job(session: Session, d: Due, job: dict[str, Any], watch: Watch) -> CronRanNow:
        assert d is due and harness.service.sessions.get(session.session_id) is session
        return outcome(job, watch)

    harness.adapter.fire_cron_job = fire_cron_job


def test_each_job_claimed_is_a_run_whose_started_names_the_job(harness):
    due = Due([{"id": "j1", "prompt": "tidy", "model": "m1"}, {"id": "j2", "prompt": 7}])
    wire(harness, due, lambda job, w: CronRanNow(True, True, None, TurnOutcome(f"{job['id']} ok")))
    answer = harness.call("cron/tick", {})["result"]
    assert answer["busy"] is False
    assert [r["jobId"] for r in answer["runs"]] == ["j1", "j2"]
    for run, (job, prompt, model) in zip(
        answer["runs"], [("j1", "tidy", "m1"), ("j2", "", None)], strict=True
    ):
        done = harness.wait_completed(run["runId"])
        harness.wait_idle(run["runId"])
        assert (done["status"], done["result"]["finalResponse"]) == ("complete", f"{job} ok")
        started = harness.run_messages(run["runId"])[0]
        assert started["method"] == "run/started"
        assert started["params"]["sessionId"] == run["sessionId"]
        assert started["params"]["model"] == model
        assert started["params"]["trigger"] == {"type": "cron", "sourceId": job, "message": prompt}
        assert run["sessionId"] not in harness.service.sessions  # dropped once it ended
    log = harness.peer.snapshot()
    answered = next(i for i, m in enumerate(log) if "busy" in m.get("result", {}))
    assert answered < next(i for i, m in enumerate(log) if m.get("method") == "run/started")


def test_a_job_still_running_here_is_not_claimed_again_and_a_failed_one_ends_in_error(harness):
    release = threading.Event()

    def outcome(job: dict[str, Any], watch: Watch) -> CronRanNow:
        assert release.wait(WAIT)
        return CronRanNow(True, False, "model down", None)

    due = Due([{"id": "j1"}])
    wire(harness, due, outcome)
    [first] = harness.call("cron/tick", {})["result"]["runs"]
    assert harness.call("cron/tick", {})["result"] == {"busy": False, "runs": []}
    assert due.told[-1] == {"j1"}
    release.set()
    done = harness.wait_completed(first["runId"])
    assert done["error"] == {"type": RunErrorType.AGENT_ERROR, "message": "model down"}
    harness.wait_idle(first["runId"])
    [again] = harness.call("cron/tick", {})["result"]["runs"]  # free again
    harness.wait_completed(again["runId"])
    harness.wait_idle(again["runId"])


def test_while_another_scheduler_ticks_the_answer_is_busy_and_nothing_runs(harness):
    wire(harness, Due(None), lambda job, w: CronRanNow(True, True, None, None))
    assert harness.call("cron/tick", {})["result"] == {"busy": True, "runs": []}
    assert not [m for m in harness.peer.snapshot() if "method" in m]


def test_an_agent_without_cron_jobs_cannot_tick(harness):
    assert error_of(harness.call("cron/tick", {})) is ErrorType.AGENT_UNAVAILABLE


def test_a_claimed_job_a_cron_run_started_meanwhile_is_left_to_that_run(harness):
    release = threading.Event()

    def outcome(job: dict[str, Any], watch: Watch) -> CronRanNow:
        assert release.wait(WAIT)
        return CronRanNow(True, True, None, TurnOutcome("ok"))

    class Racing(Due):
        def claim(self, busy: set[str]) -> list[dict[str, Any]] | None:
            won = super().claim(busy)
            # Between hermes' claim and the runs' start, a cron/run takes j1.
            harness.service._cron_run("j1", None)
            return won

    due = Racing([{"id": "j1"}, {"id": "j2"}])
    wire(harness, due, outcome)
    answer = harness.call("cron/tick", {})["result"]
    assert [r["jobId"] for r in answer["runs"]] == ["j2"]
    release.set()
    assert harness.wait_completed(answer["runs"][0]["runId"])["status"] == "complete"
