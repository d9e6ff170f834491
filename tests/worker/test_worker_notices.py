"""Background work that finished after its turn: which of hermes' completion events
become a session's notice, and how a worker hands each to its session as a run."""

from __future__ import annotations

import dataclasses
import queue
import threading
from typing import Any

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.catalog import Deleted
from hermes_stdio.worker.contract import TurnOutcome
from hermes_stdio.worker.notices import CONSUMER, Hermes, Notice, notice_of, watch

WAIT = 10.0


class FakeHermes:
    """hermes' functions the notices need, recording what they were asked."""

    def __init__(self) -> None:
        self.consumed: set[str] = set()
        self.claims: dict[str, str | None] = {}
        self.settled: list[tuple[str, str, str]] = []

    def bundle(self) -> Hermes:
        return Hermes(
            format=lambda e: f"[done: {e.get('output', '')}]" if e.get("output") != "" else None,
            consumed=lambda sid: sid in self.consumed,
            claim=lambda e, consumer: self.claims.get(e["delegation_id"], f"claim-{consumer}"),
            complete=lambda e, c: self.settled.append(("complete", e["delegation_id"], c)),
            release=lambda e, c: self.settled.append(("release", e["delegation_id"], c)),
        )


def completion(
    session_key: str, output: str = "3 kiwis", process_id: str = "proc_1"
) -> dict[str, Any]:
    return {
        "type": "completion",
        "session_id": process_id,
        "session_key": session_key,
        "output": output,
    }


def delegation(session_key: str = "hermes-stdio:sess_a") -> dict[str, Any]:
    return {"type": "async_delegation", "delegation_id": "deleg_1", "session_key": session_key}


# --- notice_of ------------------------------------------------------------------------


def test_a_process_completion_of_one_of_our_sessions_becomes_its_notice():
    notice = notice_of(completion("hermes-stdio:sess_a"), FakeHermes().bundle())
    assert notice is not None
    assert (notice.session_id, notice.kind, notice.source_id) == ("sess_a", "process", "proc_1")
    assert notice.message == "[done: 3 kiwis]"


def test_events_of_no_session_of_ours_are_dropped():
    fake = FakeHermes()
    for key in ("", "hermes-stdio:", "agent:main:telegram:dm:1"):
        assert notice_of(completion(key), fake.bundle()) is None
        assert notice_of(delegation(key), fake.bundle()) is None
    assert notice_of("not an event", fake.bundle()) is None
    assert fake.settled == []  # nothing claimed for them


def test_a_completion_the_agent_already_read_is_dropped():
    fake = FakeHermes()
    fake.consumed.add("proc_1")
    assert notice_of(completion("hermes-stdio:sess_a"), fake.bundle()) is None


def test_an_event_hermes_has_no_text_for_is_dropped():
    assert notice_of(completion("hermes-stdio:sess_a", output=""), FakeHermes().bundle()) is None


def test_a_delegation_result_is_claimed_and_completed_when_delivered_or_released_when_not():
    fake = FakeHermes()
    delivered = notice_of(delegation(), fake.bundle())
    kept = notice_of(delegation(), fake.bundle())
    assert delivered is not None and kept is not None
    assert (delivered.kind, delivered.source_id) == ("subagent", "deleg_1")
    delivered.settle(True)
    kept.settle(False)
    claim = f"claim-{CONSUMER}"
    assert fake.settled == [("complete", "deleg_1", claim), ("release", "deleg_1", claim)]


def test_a_delegation_someone_else_claimed_is_dropped():
    fake = FakeHermes()
    fake.claims["deleg_1"] = None
    assert notice_of(delegation(), fake.bundle()) is None


# --- watch ----------------------------------------------------------------------------


def test_the_watch_delivers_each_event_and_survives_one_that_fails():
    events: queue.Queue[Any] = queue.Queue()
    got: queue.Queue[Notice] = queue.Queue()
    fake = FakeHermes()
    bundle = fake.bundle()

    def format(event: dict[str, Any]) -> str | None:
        if event.get("output") == "boom":
            raise RuntimeError("boom")
        return bundle.format(event)

    broken = dataclasses.replace(bundle, format=format)
    watch(events, broken, got.put)
    events.put(completion("hermes-stdio:sess_a", output="boom"))
    events.put(completion("hermes-stdio:sess_b", output="fine", process_id="proc_2"))
    assert got.get(timeout=WAIT).session_id == "sess_b"


def test_the_watch_takes_only_the_first_completion_of_a_process_and_every_other_event():
    # A process that ended at once may be reported by hermes and again by the worker.
    events: queue.Queue[Any] = queue.Queue()
    got: queue.Queue[Notice] = queue.Queue()
    watch(events, FakeHermes().bundle(), got.put)
    match = {**completion("hermes-stdio:sess_a", "ready"), "type": "watch_match"}
    for event in (
        completion("hermes-stdio:sess_a", "first"),
        match,
        match,  # a watch pattern may match again
        completion("hermes-stdio:sess_a", "again"),
        completion("hermes-stdio:sess_a", "other", process_id="proc_2"),
    ):
        events.put(event)
    taken = [got.get(timeout=WAIT).message for _ in range(4)]
    assert taken == ["[done: first]", "[done: ready]", "[done: ready]", "[done: other]"]
    assert got.empty()


# --- the service hands notices to sessions ---------------------------------------------


class Handed:
    """A notice as the service gets it, recording how it was settled."""

    def __init__(
        self, session_id: str, text: str = "[done: 3 kiwis]", subagent: str | None = None
    ) -> None:
        self.settled: list[bool] = []
        self.settled_once = threading.Event()
        kind, source = ("subagent", subagent) if subagent else ("process", "proc_1")
        self.notice = Notice(session_id, kind, source, text, self._settle)  # type: ignore[arg-type]

    def _settle(self, delivered: bool) -> None:
        self.settled.append(delivered)
        self.settled_once.set()


def triggered(harness, session_id: str) -> dict[str, Any]:
    return harness.peer.wait_for(
        lambda log: next(
            (
                m["params"]
                for m in log
                if m.get("method") == "run/started"
                and m["params"]["sessionId"] == session_id
                and m["params"]["trigger"] is not None
            ),
            None,
        )
    )


def test_a_notice_for_a_free_session_starts_a_run_given_its_message(harness):
    seen: list[str] = []
    harness.adapter.turn = lambda agent, session, message, stop: (
        seen.append(message) or TurnOutcome("ok", [*session.history], api_calls=1)
    )
    harness.wait_completed(harness.start("hi", sessionId="sess_a")["runId"])
    handed = Handed("sess_a")
    harness.service._hand_back(handed.notice)
    started = triggered(harness, "sess_a")
    assert started["trigger"] == {
        "type": "process",
        "sourceId": "proc_1",
        "message": "[done: 3 kiwis]",
    }
    assert harness.wait_completed(started["runId"])["status"] == "complete"
    assert seen == ["hi", "[done: 3 kiwis]"]
    assert handed.settled == [True]
    result = harness.call("run/result", {"runId": started["runId"]})["result"]
    assert result["status"] == "complete"


def test_a_notice_for_a_busy_session_waits_for_its_run_to_end(harness):
    entered = harness.block()
    first = harness.start("hi", sessionId="sess_a")
    assert entered.wait(WAIT)
    handed = Handed("sess_a")
    harness.service._hand_back(handed.notice)
    assert handed.settled == []  # waiting, not started
    busy = harness.call("run/start", {"message": "again", "sessionId": "sess_a"})
    assert busy["error"]["data"]["type"] == ErrorType.SESSION_BUSY.type
    harness.adapter.turn = lambda agent, session, message, stop: TurnOutcome("ok", [], api_calls=1)
    harness.adapter.wake.set()
    harness.wait_completed(first["runId"])
    started = triggered(harness, "sess_a")
    harness.wait_completed(started["runId"])
    log = harness.peer.snapshot()
    ended_at = next(
        i
        for i, m in enumerate(log)
        if m.get("method") == "run/completed" and m["params"]["runId"] == first["runId"]
    )
    started_at = next(
        i
        for i, m in enumerate(log)
        if m.get("method") == "run/started" and m["params"]["runId"] == started["runId"]
    )
    assert ended_at < started_at
    assert handed.settled == [True]


def test_notices_for_one_session_run_one_after_another_in_arrival_order(harness):
    seen: list[str] = []
    entered, release = threading.Event(), threading.Event()

    def turn(agent, session, message, stop):
        entered.set()
        if message == "hi":
            release.wait(WAIT)
        seen.append(message)
        return TurnOutcome("ok", [], api_calls=1)

    harness.adapter.turn = turn
    harness.start("hi", sessionId="sess_a")
    assert entered.wait(WAIT)
    one, two = Handed("sess_a", "one"), Handed("sess_a", "two")
    harness.service._hand_back(one.notice)
    harness.service._hand_back(two.notice)
    release.set()
    harness.peer.wait_for(
        lambda log: sum(m.get("method") == "run/completed" for m in log) == 3 or None
    )
    assert seen == ["hi", "one", "two"]
    assert one.settled == two.settled == [True]


def test_a_notice_for_a_session_this_worker_does_not_hold_resumes_it_from_the_database(harness):
    stored = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    harness.adapter.stored_history = lambda sid: stored if sid == "sess_old" else None
    histories: list[list[dict[str, Any]]] = []
    harness.adapter.turn = lambda agent, session, message, stop: (
        histories.append(list(session.history)) or TurnOutcome("ok", [], api_calls=1)
    )
    handed = Handed("sess_old")
    harness.service._hand_back(handed.notice)
    started = triggered(harness, "sess_old")
    harness.wait_completed(started["runId"])
    assert histories == [stored]


def test_a_notice_for_a_session_the_database_does_not_know_is_dropped_for_good(harness):
    handed = Handed("sess_deleted")
    harness.service._hand_back(handed.notice)
    assert handed.settled == [True]  # completed: hermes must not offer it again
    assert "sess_deleted" not in harness.service.sessions
    assert not any(m.get("method") == "run/started" for m in harness.peer.snapshot())


def test_a_triggered_run_whose_agent_cannot_be_built_is_announced_before_it_ends(harness):
    harness.wait_completed(harness.start("hi", sessionId="sess_a")["runId"])
    harness.service.sessions["sess_a"].agent = None
    harness.adapter.build_error = RuntimeError("no agent today")
    harness.service._hand_back(Handed("sess_a").notice)
    started = triggered(harness, "sess_a")
    done = harness.wait_completed(started["runId"])
    assert done["status"] == "error" and done["error"]["type"] == RunErrorType.AGENT_ERROR
    notes = harness.run_messages(started["runId"])
    assert [m["method"] for m in notes] == ["run/started", "run/completed"]
    assert [m["params"]["seq"] for m in notes] == [1, 2]


def test_notices_waiting_when_the_worker_stops_are_handed_back_to_hermes(harness):
    entered = harness.block()
    harness.start("hi", sessionId="sess_a")
    assert entered.wait(WAIT)
    waiting = Handed("sess_a")
    harness.service._hand_back(waiting.notice)
    harness.service.stop_runs()
    assert waiting.settled == [False]
    late = Handed("sess_a")
    harness.service._hand_back(late.notice)
    assert late.settled == [False]
    assert not any(
        m.get("method") == "run/started" and m["params"]["trigger"] for m in harness.peer.snapshot()
    )


def test_deleting_a_session_ends_its_background_work_and_drops_what_it_reports(harness):
    ended: list[str] = []
    harness.adapter.end_background = lambda sid: ended.append(sid) or ["deleg_1", "proc_1"]
    harness.adapter.delete_session = lambda sid: Deleted((sid,), 2)
    first = harness.start("hi", sessionId="sess_a")
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    assert harness.call("session/delete", {"sessionId": "sess_a"})["result"][
        "removedSessionIds"
    ] == ["sess_a"]
    assert ended == ["sess_a"]
    # The id is used again, for a new conversation: only its own work reports to it.
    harness.adapter.stored_history = lambda sid: [{"role": "user", "content": "anew"}]

    report = Handed("sess_a", "[subagent interrupted]", subagent="deleg_1")
    harness.service._hand_back(report.notice)
    assert report.settled == [True]  # hermes must not offer it again either
    killed = Handed("sess_a", "[process killed]")
    harness.service._hand_back(killed.notice)
    assert killed.settled == [True]
    assert "sess_a" not in harness.service.sessions  # not resumed to take them
    other = Handed("sess_a", "[subagent done]", subagent="deleg_2")  # not one it ended
    harness.service._hand_back(other.notice)
    started = triggered(harness, "sess_a")
    assert started["trigger"]["sourceId"] == "deleg_2"
    harness.wait_completed(started["runId"])
