"""WorkerService cron/run with a fake adapter: a run of its own whose session is
listed while it lasts, one run/completed saying how the job went, an interrupt
handed to the job's agents, and refusals before any run starts."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from worker_service_helpers import WAIT, error_of

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.contract import CronRanNow, TurnOutcome
from hermes_stdio.worker.cron_run import Watch
from hermes_stdio.worker.cronjobs import CronRefused, UnknownCronJob
from hermes_stdio.worker.state import Session


class Jobs:
    def runnable(self, job_id: str) -> dict[str, Any]:
        if job_id == "paused":
            raise CronRefused("cron job paused is paused: resume it first")
        if job_id != "j1":
            raise UnknownCronJob(job_id)
        return {"id": "j1", "model": "cron-model"}


def wire(harness: Any, outcome: Any) -> list[tuple[str, str]]:
    """cron/run in the harness: ``outcome(session, watch)`` is what the job gives."""
    seen: list[tuple[str, str]] = []
    jobs = Jobs()
    harness.adapter.cron_jobs = lambda: jobs

    def run_cron_job(session: Session, given: Jobs, job_id: str, watch: Watch) -> CronRanNow:
        assert given is jobs  # those the job was checked in
        seen.append((session.session_id, job_id))
        listed = harness.service.sessions.get(session.session_id)
        assert listed is session and session.run is not None  # its asks find it
        return outcome(session, watch)

    harness.adapter.run_cron_job = run_cron_job
    return seen


def test_a_job_run_now_is_one_run_that_completes_with_its_agents_answer(harness):
    turn = TurnOutcome("all done", [{}, {}, {}], api_calls=2)
    seen = wire(harness, lambda s, w: CronRanNow(True, True, None, turn))
    ack = harness.call("cron/run", {"jobId": "j1"})["result"]
    done = harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert seen == [(ack["sessionId"], "j1")]
    assert ack["sessionId"].startswith("cron_")
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs] == ["run/started", "run/completed"]
    assert msgs[0]["params"]["model"] == "cron-model" and msgs[0]["params"]["trigger"] is None
    assert done["status"] == "complete"
    assert done["result"] == {
        "finalResponse": "all done",
        "messageCount": 3,
        "apiCalls": 2,
        "usage": None,
    }
    assert ack["sessionId"] not in harness.service.sessions  # nothing stays loaded
    assert harness.adapter.forgotten == [ack["sessionId"]]


@pytest.mark.parametrize(
    ("ran", "message"),
    [
        (CronRanNow(False, False, "already being fired", None), "already being fired"),
        (CronRanNow(True, False, "model down", None), "model down"),
    ],
    ids=["not-run", "failed"],
)
def test_a_job_hermes_did_not_run_or_that_failed_ends_the_run_in_error(harness, ran, message):
    wire(harness, lambda s, w: ran)
    ack = harness.call("cron/run", {"jobId": "j1"})["result"]
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "error"
    assert done["error"] == {"type": RunErrorType.AGENT_ERROR, "message": message}


def test_an_interrupt_reaches_the_jobs_agents_and_the_run_ends_interrupted(harness):
    entered, interrupted = threading.Event(), threading.Event()

    class Agent:
        def interrupt(self, message: str | None) -> None:
            interrupted.set()

    def job(session: Session, watch: Watch) -> CronRanNow:
        watch.started(Agent())
        entered.set()
        assert interrupted.wait(WAIT)
        return CronRanNow(True, False, "interrupted", TurnOutcome("partial"))

    wire(harness, job)
    ack = harness.call("cron/run", {"jobId": "j1"})["result"]
    assert entered.wait(WAIT)
    assert harness.call("run/interrupt", {"runId": ack["runId"]})["result"] == {"interrupted": True}
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "interrupted" and done["result"]["finalResponse"] == "partial"


@pytest.mark.parametrize(
    ("job_id", "kind"),
    [("paused", ErrorType.INVALID_PARAMS), ("nope", ErrorType.UNKNOWN_CRON_JOB)],
)
def test_a_paused_or_unknown_job_is_refused_before_any_run(harness, job_id, kind):
    seen = wire(harness, lambda s, w: pytest.fail("ran"))
    answer = harness.call("cron/run", {"jobId": job_id})
    assert error_of(answer) is kind
    field = "field" if kind is ErrorType.INVALID_PARAMS else "jobId"
    assert answer["error"]["data"][field] == ("params.jobId" if field == "field" else job_id)
    assert seen == [] and not [m for m in harness.peer.snapshot() if "method" in m]


def test_an_agent_without_cron_jobs_is_agent_unavailable(harness):
    assert error_of(harness.call("cron/run", {"jobId": "j1"})) is ErrorType.AGENT_UNAVAILABLE


def test_the_jobs_agent_reports_into_the_run_and_steering_reaches_it(harness):
    steered: list[tuple[Any, str]] = []
    harness.adapter.steer = lambda agent, text: steered.append((agent, text)) or True
    entered, go, tooled, finish = (threading.Event() for _ in range(4))

    class Agent:
        tool_start_callback: Any = None

        def interrupt(self, message: str | None) -> None:
            pass

    agent = Agent()

    def job(session: Session, watch: Watch) -> CronRanNow:
        watch.started(agent)  # hermes' job agent starts: it gets the run's callbacks
        entered.set()
        assert go.wait(WAIT)
        agent.tool_start_callback("c1", "terminal", {"command": "ls"})
        tooled.set()
        assert finish.wait(WAIT)
        return CronRanNow(True, True, None, TurnOutcome("ok"))

    wire(harness, job)
    ack = harness.call("cron/run", {"jobId": "j1"})["result"]

    def steer(text: str) -> Any:
        return harness.call("run/steer", {"runId": ack["runId"], "text": text})["result"]

    assert entered.wait(WAIT)
    assert steer("also this") == {"accepted": True}
    assert steered == []  # it waits for the job's first tool call
    go.set()
    assert tooled.wait(WAIT)
    assert steered == [(agent, "also this")]
    assert steer("and this") == {"accepted": True}  # straight to the job's agent now
    assert steered == [(agent, "also this"), (agent, "and this")]
    finish.set()
    harness.wait_completed(ack["runId"])
    [event] = [m for m in harness.run_messages(ack["runId"]) if m["method"] == "run/event"]
    assert event["params"]["event"]["type"] == "tool.started"
    assert event["params"]["event"]["name"] == "terminal"


def test_a_job_a_run_of_this_worker_runs_now_is_refused_until_that_run_ends(harness):
    entered, release = threading.Event(), threading.Event()

    def job(session: Session, watch: Watch) -> CronRanNow:
        entered.set()
        assert release.wait(WAIT)
        return CronRanNow(True, True, None, TurnOutcome("done"))

    seen = wire(harness, job)
    first = harness.call("cron/run", {"jobId": "j1"})["result"]
    assert entered.wait(WAIT)
    answer = harness.call("cron/run", {"jobId": "j1"})
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.jobId"
    assert len(seen) == 1 and len(harness.service.sessions) == 1  # nothing of it stays
    release.set()
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    again = harness.call("cron/run", {"jobId": "j1"})["result"]
    assert harness.wait_completed(again["runId"])["status"] == "complete"
