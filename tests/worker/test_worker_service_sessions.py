"""WorkerService sessions: stored history, model switches, estimates, history, toolsets."""

from __future__ import annotations

import pytest
from worker_service_helpers import WAIT, error_of

from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.contract import AgentUnavailable


def test_a_session_id_the_worker_does_not_hold_resumes_from_stored_history(harness):
    stored = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    asked: list[str] = []

    def stored_history(session_id):
        asked.append(session_id)
        return list(stored) if session_id == "sess_known" else None

    harness.adapter.stored_history = stored_history
    for params, count in (
        ({"sessionId": "sess_known"}, 4),  # stored two + this turn's two
        ({"sessionId": "sess_unknown"}, 2),
        ({"sessionId": "sess_given", "conversationHistory": []}, 2),  # the host's history wins
        ({}, 2),  # a new session
    ):
        ack = harness.start(**params)
        done = harness.wait_completed(ack["runId"])
        harness.wait_idle(ack["runId"])
        assert done["result"]["messageCount"] == count, params
    assert asked == ["sess_known", "sess_unknown"]
    # Once held, the session is not read back again.
    ack = harness.start(sessionId="sess_known")
    assert harness.wait_completed(ack["runId"])["result"]["messageCount"] == 6
    assert asked == ["sess_known", "sess_unknown"]


def started_model(harness, run_id):
    [started] = [m for m in harness.run_messages(run_id) if m["method"] == "run/started"]
    return started["params"]["model"]


def test_switch_model_applies_from_the_next_run_and_waits_for_a_running_one(harness):
    echo = harness.adapter.turn
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    sid = ack["sessionId"]
    idle = harness.call("session/switchModel", {"sessionId": sid, "model": "m2", "provider": "p"})
    assert idle["result"] == {"sessionId": sid, "model": "m2", "provider": "p", "deferred": False}
    entered = harness.block()
    running = harness.start(sessionId=sid)
    assert entered.wait(WAIT)
    assert started_model(harness, running["runId"]) == "m2"
    busy = harness.call("session/switchModel", {"sessionId": sid, "model": "m3"})
    assert busy["result"]["deferred"] is True
    harness.adapter.wake.set()
    harness.wait_completed(running["runId"])
    harness.wait_idle(running["runId"])
    harness.adapter.turn = echo
    after = harness.start(sessionId=sid)
    harness.wait_completed(after["runId"])
    assert started_model(harness, after["runId"]) == "m3"
    # A session no worker holds is created with that model (and resumed if stored).
    new = harness.call("session/switchModel", {"sessionId": "sess_new", "model": "m4"})
    assert new["result"]["deferred"] is False
    run = harness.start(sessionId="sess_new")
    harness.wait_completed(run["runId"])
    assert started_model(harness, run["runId"]) == "m4"


def test_switch_model_to_a_model_that_cannot_resolve_is_invalid_params(harness):
    def resolve(model, provider):
        raise ValueError(f"Unknown provider {provider!r}")

    harness.adapter.resolve_model = resolve
    answer = harness.call(
        "session/switchModel", {"sessionId": "s", "model": "m", "provider": "nope"}
    )
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.provider"
    assert "s" not in harness.service.sessions


def test_history_sent_with_run_start_wins_over_a_stored_one_for_a_session_made_by_switch_model(
    harness,
):
    asked: list[str] = []
    harness.adapter.stored_history = lambda sid: asked.append(sid) or [{"role": "user"}] * 5
    harness.call("session/switchModel", {"sessionId": "sess_k", "model": "m"})
    ack = harness.start(sessionId="sess_k", conversationHistory=[])
    assert harness.wait_completed(ack["runId"])["result"]["messageCount"] == 2
    assert asked == []


def test_estimate_context_counts_the_sessions_history_or_the_given_messages(harness):
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    sid = ack["sessionId"]
    own = harness.call("session/estimateContext", {"sessionId": sid})["result"]
    assert own["sessionId"] == sid and own["model"] == "fake-model"
    assert own["messageCount"] == 2 and own["tokens"] > 0
    given = [{"role": "user", "content": "x" * 400}] * 3
    other = harness.call("session/estimateContext", {"sessionId": sid, "messages": given})
    assert other["result"]["messageCount"] == 3
    assert other["result"]["tokens"] > own["tokens"]
    # A session the worker does not hold is resumed from the database first.
    harness.adapter.stored_history = lambda s: [{"role": "user", "content": "old"}]
    resumed = harness.call("session/estimateContext", {"sessionId": "sess_stored"})
    assert resumed["result"]["messageCount"] == 1


def test_estimate_context_reports_an_agent_that_cannot_be_built(harness):
    harness.adapter.build_error = RuntimeError("no model configured")
    answer = harness.call("session/estimateContext", {"sessionId": "s"})
    assert error_of(answer) is ErrorType.AGENT_ERROR
    harness.adapter.build_error = AgentUnavailable("cannot import hermes-agent")
    answer = harness.call("session/estimateContext", {"sessionId": "s2"})
    assert error_of(answer) is ErrorType.AGENT_UNAVAILABLE


def test_session_history_answers_from_memory_without_private_keys(harness):
    ack = harness.start("first")
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    harness.service.sessions[ack["sessionId"]].history[0]["_db_persisted"] = True
    answer = harness.call("session/history", {"sessionId": ack["sessionId"]})
    assert answer["result"] == {
        "sessionId": ack["sessionId"],
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "Hello"},
        ],
        "messageCount": 2,
        "firstIndex": 0,
    }
    harness.call("session/destroy", {"sessionId": ack["sessionId"]})


def test_session_history_pages_back_from_the_end_by_limit_and_before(harness):
    stored = [{"role": "user", "content": str(i)} for i in range(7)]
    harness.adapter.stored_history = lambda sid: stored

    def page(**bounds):
        result = harness.call("session/history", {"sessionId": "s"} | bounds)["result"]
        said = [m["content"] for m in result["messages"]]
        return said, result["firstIndex"], result["messageCount"]

    assert page(limit=3) == (["4", "5", "6"], 4, 7)
    assert page(limit=3, before=4) == (["1", "2", "3"], 1, 7)
    assert page(limit=3, before=1) == (["0"], 0, 7)
    assert page(limit=3, before=0) == ([], 0, 7)
    assert page(before=2) == (["0", "1"], 0, 7)
    assert page(limit=2, before=99) == (["5", "6"], 5, 7)  # past the end: the end


@pytest.mark.parametrize(
    ("bounds", "field"),
    [
        ({"limit": 0}, "params.limit"),
        ({"limit": 1001}, "params.limit"),
        ({"before": -1}, "params.before"),
    ],
)
def test_session_history_refuses_a_page_out_of_range(harness, bounds, field):
    answer = harness.call("session/history", {"sessionId": "s"} | bounds)
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == field


def test_session_history_of_a_session_not_held_reads_the_store_without_loading_it(harness):
    stored = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    harness.adapter.stored_history = lambda sid: stored if sid == "sess_stored" else None
    answer = harness.call("session/history", {"sessionId": "sess_stored"})
    assert answer["result"]["messages"] == stored
    assert harness.service.sessions == {}
    unknown = harness.call("session/history", {"sessionId": "sess_nobody"})
    assert error_of(unknown) is ErrorType.UNKNOWN_SESSION
    assert unknown["error"]["data"]["sessionId"] == "sess_nobody"


def test_session_history_without_hermes_is_agent_unavailable(harness):
    def missing(session_id):
        raise AgentUnavailable("cannot import hermes-agent")

    harness.adapter.stored_history = missing
    answer = harness.call("session/history", {"sessionId": "sess_x"})
    assert error_of(answer) is ErrorType.AGENT_UNAVAILABLE


def test_disabled_toolsets_build_the_sessions_agent_without_them_and_a_change_rebuilds_it(
    harness,
):
    built: list[tuple[str, ...] | None] = []
    build = harness.adapter.build

    def recording(session, sink):
        built.append(session.disabled_toolsets)
        return build(session, sink)

    harness.adapter.build = recording
    released: list[object] = []
    harness.adapter.release = released.append

    def turn(**params):
        run = harness.start(sessionId="s", **params)
        harness.wait_completed(run["runId"])
        harness.wait_idle(run["runId"])
        return harness.call("session/status", {"sessionId": "s"})["result"]["disabledToolsets"]

    assert turn(disabledToolsets=["terminal", "file", "terminal"]) == ["file", "terminal"]
    assert turn() == ["file", "terminal"]  # kept: the same agent
    assert turn(disabledToolsets=["file", "terminal"]) == ["file", "terminal"]
    assert turn(disabledToolsets=["web"]) == ["web"]  # another set: a new agent
    assert turn(disabledToolsets=[]) is None  # none again: a new agent
    assert built == [("file", "terminal"), ("web",), None]
    assert released == harness.adapter.agents[:2]  # the replaced ones let go of
    assert len(harness.service.sessions["s"].history) == 10  # the conversation went on


def test_an_unknown_disabled_toolset_is_invalid_params_and_starts_nothing(harness):
    harness.adapter.unknown_toolsets = lambda names: [n for n in names if n == "nope"]
    answer = harness.call(
        "run/start", {"message": "hi", "sessionId": "s", "disabledToolsets": ["file", "nope"]}
    )
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.disabledToolsets"
    assert "s" not in harness.service.sessions


def test_session_export_passes_the_choices_on_and_an_unknown_session_is_named(harness):
    asked = []

    def export(sid, fmt, redact, lineage):
        asked.append((sid, fmt, redact, lineage))
        return "# exported", 2

    unknown = harness.call("session/export", {"sessionId": "sess_nobody"})  # no database
    assert error_of(unknown) is ErrorType.UNKNOWN_SESSION
    assert unknown["error"]["data"]["sessionId"] == "sess_nobody"
    harness.adapter.export_session = export
    answer = harness.call(
        "session/export", {"sessionId": "s", "format": "html", "redact": True, "lineage": True}
    )
    assert answer["result"] == {
        "sessionId": "s",
        "format": "html",
        "content": "# exported",
        "messageCount": 2,
    }
    harness.call("session/export", {"sessionId": "s"})
    assert asked == [("s", "html", True, True), ("s", "markdown", False, False)]
    bad = harness.call("session/export", {"sessionId": "s", "format": "pdf"})
    assert error_of(bad) is ErrorType.INVALID_PARAMS
