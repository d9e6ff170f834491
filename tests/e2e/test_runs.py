"""Runs with the real hermes-agent against the scripted LLM, through the real binary."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError, encode_frame, encode_request

from .conftest import run_in_a_long_tool
from .test_approvals import respond, waiting


def run_to_end(host: HostClient, params: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    run = host.request("run/start", params)
    host.wait_run_completed(run["runId"])
    return run, host.run_notifications(run["runId"])


def on_chunk_boundaries(texts: list[str], chunks: list[str]) -> bool:
    """Whether ``texts`` are ``chunks`` in order, some neighbours joined."""
    rest = list(chunks)
    for text in texts:
        taken = ""
        while rest and len(taken) < len(text):
            taken += rest.pop(0)
        if taken != text:
            return False
    return not rest


def test_a_streaming_run_sends_deltas_in_order_then_exactly_one_completed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # 10 ms apart, as a model a human reads streams: each piece is sent as it comes.
    llm.enqueue(Reply.text(["Hel", "lo, ", "wor", "ld", "!"], delay=0.01))
    run, notes = run_to_end(host, {"message": "say hello"})
    assert run["runId"] and run["sessionId"]
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert all(n.params["sessionId"] == run["sessionId"] for n in notes)
    methods = [n.method for n in notes]
    assert methods[0] == "run/started" and methods[-1] == "run/completed"
    assert methods.count("run/completed") == 1
    # A descheduled writer on a loaded machine may merge neighbours (the
    # lagging-reader rule), never split, reorder or drop one.
    texts = [n.params["text"] for n in notes if n.method == "run/delta"]
    assert on_chunk_boundaries(texts, ["Hel", "lo, ", "wor", "ld", "!"])
    done = notes[-1].params
    assert done["status"] == "complete" and done["error"] is None
    assert done["result"]["finalResponse"] == "Hello, world!"
    assert notes[0].params["model"] == "test-model" and notes[0].params["profile"] == "default"


def test_a_stream_faster_than_a_piece_per_millisecond_arrives_in_fewer_frames_intact(
    host: HostClient, llm: ScriptedLLM
) -> None:
    chunks = [f"c{i} " for i in range(2000)]  # no delay: as fast as hermes parses them
    llm.enqueue(Reply.text(chunks))
    _run, notes = run_to_end(host, {"message": "flood"})
    deltas = [n for n in notes if n.method == "run/delta"]
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert "".join(n.params["text"] for n in deltas) == "".join(chunks)
    assert len(deltas) < len(chunks)  # batched: at most one write per millisecond
    assert [n.method for n in notes].count("run/completed") == 1


def test_run_result_returns_a_finished_runs_outcome_and_refuses_unknown_runs(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["done"]))
    run, notes = run_to_end(host, {"message": "hi"})
    result = host.request("run/result", {"runId": run["runId"]})
    assert result == {
        "runId": run["runId"],
        "sessionId": run["sessionId"],
        "status": "complete",
        "result": notes[-1].params["result"],
        "error": None,
    }
    with pytest.raises(RpcError) as err:
        host.request("run/result", {"runId": "run_nope"})
    assert err.value.kind is ErrorType.UNKNOWN_RUN


def test_a_second_run_on_a_busy_session_is_refused_with_session_busy(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["a", "b", "c", "d"], delay=0.3))
    run = host.request("run/start", {"message": "slow"})
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "again", "sessionId": run["sessionId"]})
    assert err.value.kind is ErrorType.SESSION_BUSY
    assert err.value.data["runId"] == run["runId"]
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_session_being_destroyed_stays_busy_until_its_run_has_ended(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, _pids = run_in_a_long_tool(host, llm, tmp_path)
    sid = run["sessionId"]
    host.write_raw(  # in one write: the run/start arrives while the destroy interrupts
        encode_frame(encode_request("d", "session/destroy", {"sessionId": sid}))
        + encode_frame(encode_request("s", "run/start", {"message": "next", "sessionId": sid}))
    )
    busy = host.response("s", 60)
    assert busy.error is not None and busy.error["code"] == ErrorType.SESSION_BUSY.code
    assert busy.error["data"]["runId"] == run["runId"]
    assert host.response("d", 60).result == {"destroyed": True}
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    llm.enqueue(Reply.text(["again"]))
    run_to_end(host, {"message": "next", "sessionId": sid})  # resumed afresh
    history = host.request("session/history", {"sessionId": sid})["messages"]
    assert [m["content"] for m in history if m["role"] == "user"] == ["wait", "next"]
    assert host.request("session/status", {"sessionId": sid})["loaded"] is True


def test_interrupting_a_streaming_run_ends_it_as_interrupted(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text([f"w{i} " for i in range(50)], delay=0.2))
    run = host.request("run/start", {"message": "long"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == run["runId"])
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": True}
    done = host.wait_run_completed(run["runId"], timeout=20)
    assert done.params["status"] == "interrupted"
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": False}
    # The session is free again and a fresh turn is not hit by the old interrupt.
    llm.clear()
    llm.enqueue(Reply.text(["fresh"]))
    _, notes = run_to_end(host, {"message": "again", "sessionId": run["sessionId"]})
    assert notes[-1].params["status"] == "complete"
    assert notes[-1].params["result"]["finalResponse"] == "fresh"


def test_a_session_carries_its_history_into_the_next_turn(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["first answer"]))
    run, _ = run_to_end(host, {"message": "first question"})
    llm.enqueue(Reply.text(["second answer"]))
    before = len(llm.requests)
    run_to_end(host, {"message": "second question", "sessionId": run["sessionId"]})
    sent = [r for r in llm.requests[before:] if "first question" in str(r.get("messages"))]
    assert sent, "the second turn did not send the first turn's history"
    contents = [m.get("content") for m in sent[0]["messages"]]
    assert "first answer" in str(contents) and "second question" in str(contents)


def test_the_next_turn_started_as_soon_as_run_completed_arrives_is_never_session_busy(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = None
    for turn in range(20):
        llm.enqueue(Reply.text([f"answer {turn}"]))
        run, notes = run_to_end(host, {"message": f"turn {turn}", "sessionId": sid})
        sid = run["sessionId"]
        assert notes[-1].params["status"] == "complete"
    assert notes[-1].params["result"]["messageCount"] == 40


def test_instructions_and_conversation_history_reach_the_model(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    history = [
        {"role": "user", "content": "remember the word pelican"},
        {"role": "assistant", "content": "noted"},
    ]
    before = len(llm.requests)
    run_to_end(
        host,
        {
            "message": "what word?",
            "instructions": "Always answer in French.",
            "conversationHistory": history,
        },
    )
    body = next(r for r in llm.requests[before:] if "what word?" in str(r.get("messages")))
    text = str(body["messages"])
    assert "Always answer in French." in text and "pelican" in text


def test_a_reasoning_effort_reaches_the_model_and_stays_for_the_sessions_later_turns(
    host: HostClient, llm: ScriptedLLM
) -> None:
    def sent(message: str) -> dict[str, Any]:  # the messages are words no prompt holds
        return next(r for r in llm.requests if message in str(r.get("messages")))

    llm.enqueue(*[Reply.text(["ok"])] * 5)
    run, _ = run_to_end(host, {"message": "turn-one"})
    sid = run["sessionId"]
    assert "reasoning_effort" not in sent("turn-one")  # the profile sets none
    assert host.request("session/status", {"sessionId": sid})["reasoningEffort"] is None
    run_to_end(host, {"message": "turn-two", "sessionId": sid, "reasoningEffort": "high"})
    run_to_end(host, {"message": "turn-three", "sessionId": sid})
    assert sent("turn-two")["reasoning_effort"] == sent("turn-three")["reasoning_effort"] == "high"
    assert host.request("session/status", {"sessionId": sid})["reasoningEffort"] == "high"
    host.request("session/switchModel", {"sessionId": sid, "model": "other-model"})
    run_to_end(host, {"message": "turn-switched", "sessionId": sid})
    assert sent("turn-switched")["model"] == "other-model"
    assert sent("turn-switched")["reasoning_effort"] == "high"  # a new model keeps it
    run_to_end(host, {"message": "turn-four", "sessionId": sid, "reasoningEffort": "none"})
    assert sent("turn-four")["reasoning_effort"] == "none"  # hermes' way to turn it off
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "x", "sessionId": sid, "reasoningEffort": "huge"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.reasoningEffort"


def test_session_status_list_and_destroy_describe_loaded_sessions(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "hi"})
    status = host.request("session/status", {"sessionId": run["sessionId"]})
    assert status["loaded"] is True and status["running"] is False
    assert status["model"] == "test-model" and status["messageCount"] == 2
    listed = host.request("session/list", {})
    assert [s["sessionId"] for s in listed["sessions"]] == [run["sessionId"]]
    assert host.request("session/destroy", {"sessionId": run["sessionId"]}) == {"destroyed": True}
    assert host.request("session/status", {"sessionId": run["sessionId"]})["loaded"] is False
    assert host.request("session/destroy", {"sessionId": run["sessionId"]}) == {"destroyed": False}


def test_a_run_start_cancelled_while_its_worker_starts_is_answered_request_cancelled_and_never_runs(
    host: HostClient, llm: ScriptedLLM
) -> None:
    msg_id = host.send_request("run/start", {"message": "cancel me"})  # cold worker: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    # Answered, so the id is free again at once, though the worker still starts.
    reused = host.send_request("supervisor/status", msg_id=msg_id)
    assert reused == msg_id and host.response(msg_id).result["pid"] == host.proc.pid
    assert_only_the_next_run_ran(host, llm)
    with pytest.raises(TimeoutError):
        host.response(msg_id, timeout=0.5)  # the cancelled request is never answered again


def test_a_session_named_by_a_run_start_cancelled_while_its_worker_starts_is_free_again(
    host: HostClient, llm: ScriptedLLM
) -> None:
    start = {"sessionId": "sess-claimed", "profile": "work", "message": "cancel me"}
    msg_id = host.send_request("run/start", start)  # work's worker is cold: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    assert host.response(msg_id).error["code"] == ErrorType.REQUEST_CANCELLED.code
    # Waits behind the cancelled one for work's worker: answered once it was dropped.
    host.request("session/status", {"sessionId": "other", "profile": "work"}, timeout=60)
    # The session went with no worker, so another profile may start it.
    llm.enqueue(Reply.text(["mine"]))
    _run, notes = run_to_end(host, {"sessionId": "sess-claimed", "message": "default's now"})
    assert notes[-1].params["status"] == "complete"
    assert host.request("session/status", {"sessionId": "sess-claimed"})["profile"] == "default"


def assert_only_the_next_run_ran(host: HostClient, llm: ScriptedLLM) -> None:
    """A run/start sent after cancelled ones (it waits behind them for the same worker)
    is the only run that starts, and the only turn the model is asked for."""
    llm.enqueue(Reply.text(["after"]))
    run, notes = run_to_end(host, {"message": "the next one"})
    assert notes[-1].params["status"] == "complete"
    received = [m for _, m in host.received if isinstance(m, Notification) and m.params]
    runs = {n.params["runId"] for n in received if "runId" in n.params}
    assert runs == {run["runId"]}
    asked = [m["content"] for r in llm.requests for m in r["messages"] if m["role"] == "user"]
    assert asked == ["the next one"]


@pytest.mark.parametrize("msg_id", [2**63, "\ud800"], ids=["huge", "lone-surrogate"])
def test_a_request_sent_with_any_id_can_be_cancelled(
    host: HostClient, llm: ScriptedLLM, msg_id: Any
) -> None:
    host.send_request("run/start", {"message": "cancel me"}, msg_id=msg_id)  # cold: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    assert_only_the_next_run_ran(host, llm)


def test_what_hermes_prints_to_stdout_reaches_stderr_and_never_the_wire(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.error(400, "scripted failure"))
    _run, notes = run_to_end(host, {"message": "fail please"})
    done = notes[-1].params
    assert done["status"] == "error" and done["error"]["type"] == RunErrorType.AGENT_ERROR
    assert "scripted failure" in done["error"]["message"]
    # hermes print()s this block to stdout; the worker's fd 1 is its stderr.
    host.wait_stderr(lambda line: line.startswith("[worker:default]") and "API call failed" in line)
    assert host.request("supervisor/status")["pid"] == host.proc.pid


def test_the_session_and_its_messages_are_stored_in_the_profiles_sqlite_db(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["stored answer"]))
    run, _ = run_to_end(host, {"message": "store this"})
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute(
            "SELECT role, content FROM messages WHERE session_id = ? ORDER BY id",
            (run["sessionId"],),
        ).fetchall()
    assert ("user", "store this") in rows
    assert ("assistant", "stored answer") in rows


def test_tools_run_in_the_sessions_workspace_and_report_tool_events_from_generation_on(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "where?", "workspace": str(workspace)})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    started = [e for e in events if e["type"] == "tool.started"]
    completed = [e for e in events if e["type"] == "tool.completed"]
    assert started and started[0]["name"] == "terminal" and started[0]["args"]["command"] == "pwd"
    # While the model still streamed the call, the host heard which tool was coming.
    generating = [i for i, e in enumerate(events) if e["type"] == "tool.generating"]
    assert [events[i]["name"] for i in generating] == ["terminal"]
    assert generating[0] < events.index(started[0])
    assert completed and completed[0]["toolCallId"] == started[0]["toolCallId"]
    assert isinstance(completed[0]["durationMs"], int) and completed[0]["durationMs"] >= 0
    assert str(workspace) in completed[0]["result"]
    assert notes[-1].params["status"] == "complete"


def test_each_model_call_is_followed_by_a_usage_event_and_the_last_equals_the_runs_usage(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    kinds = [e["type"] for e in events]
    used = [e["usage"] for e in events if e["type"] == "usage"]
    assert len(used) == 2 == notes[-1].params["result"]["apiCalls"]  # one per model call
    # The first call's usage reaches the host before the tool it asked for runs.
    assert kinds.index("usage") < kinds.index("tool.started")
    second = kinds.index("step", 1)  # the second model call is about to be made
    assert kinds[:second].count("usage") == 1 and kinds[second:].count("usage") == 1
    assert used[-1] == notes[-1].params["result"]["usage"]
    first, last = used
    assert 0 < first["inputTokens"] < last["inputTokens"]  # the run's calls so far, added up
    assert first["contextTokens"] == first["inputTokens"]  # the window after the first call
    assert first["contextLength"] == 131072


def test_a_model_the_provider_lists_a_price_for_has_the_runs_cost_in_its_usage(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.pricing = {"prompt": "0.000002", "completion": "0.00001"}  # USD per token of test-model
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    used = notes[-1].params["result"]["usage"]
    price = used["inputTokens"] * 0.000002 + used["outputTokens"] * 0.00001
    assert used["costUsd"] == pytest.approx(price, abs=1e-9) and price > 0
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    first = next(e["usage"] for e in events if e["type"] == "usage")
    assert 0 < first["costUsd"] < used["costUsd"]  # the first call's, then both calls'
    # A model the provider lists no price for: no cost, and no guess at one.
    _run, notes = run_to_end(host, {"message": "again", "model": "unpriced-model"})
    assert notes[-1].params["result"]["usage"]["costUsd"] is None


def test_the_agents_todo_list_reaches_the_host_as_a_plan_each_time_it_writes_it(
    host: HostClient, llm: ScriptedLLM
) -> None:
    plan = [
        {"id": "1", "content": "read the code", "status": "completed"},
        {"id": "2", "content": "fix the bug", "status": "in_progress"},
    ]
    progress = [{"id": "2", "status": "completed"}, {"id": "3", "content": "test it"}]
    llm.enqueue(
        Reply.tool_call("todo", {"todos": plan}),
        Reply.tool_call("todo", {"todos": progress, "merge": True}),
        Reply.tool_call("todo", {}),  # a read writes nothing
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "plan it"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    plans = [e["items"] for e in events if e["type"] == "plan"]
    assert plans == [
        plan,
        [  # hermes merged the update into its list, and a new task starts pending
            {"id": "1", "content": "read the code", "status": "completed"},
            {"id": "2", "content": "fix the bug", "status": "completed"},
            {"id": "3", "content": "test it", "status": "pending"},
        ],
    ]
    first = next(i for i, e in enumerate(events) if e["type"] == "plan")
    assert events[first - 1]["type"] == "tool.completed" and events[first - 1]["name"] == "todo"
    assert notes[-1].params["status"] == "complete"


def test_tool_args_json_cannot_carry_arrive_as_strings_and_the_run_still_completes(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # The model's arguments say NaN (Python's json accepts it); strict JSON on the wire cannot.
    args = {"command": "echo ok", "timeout": float("nan")}
    llm.enqueue(Reply.tool_call("terminal", args), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    started = [
        n.params["event"]
        for n in notes
        if n.method == "run/event" and n.params["event"]["type"] == "tool.started"
    ]
    assert started and started[0]["args"] == {"command": "echo ok", "timeout": "nan"}
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[-1].method == "run/completed" and notes[-1].params["status"] == "complete"


def test_the_source_of_a_new_session_is_recorded_in_the_db(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "hi", "source": "vscode"})
    with sqlite3.connect(home / "state.db") as db:
        (source,) = db.execute(
            "SELECT source FROM sessions WHERE id = ?", (run["sessionId"],)
        ).fetchone()
    assert source == "vscode"


def test_a_new_session_uses_the_model_named_in_run_start(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    before = len(llm.requests)
    run, notes = run_to_end(host, {"message": "which model?", "model": "other-model"})
    assert notes[0].params["model"] == "other-model"
    sent = [r for r in llm.requests[before:] if "which model?" in str(r.get("messages"))]
    assert sent and sent[0]["model"] == "other-model"
    status = host.request("session/status", {"sessionId": run["sessionId"]})
    assert status["model"] == "other-model"


def test_a_provider_hermes_does_not_know_is_refused_by_run_start_and_starts_nothing(
    host: HostClient, llm: ScriptedLLM
) -> None:
    with pytest.raises(RpcError) as err:
        host.request(
            "run/start", {"message": "hi", "sessionId": "typo", "provider": "no-such-provider"}
        )
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.provider"
    assert host.request("session/list") == {"sessions": []}
    assert not [n for _, n in host.received if getattr(n, "method", "").startswith("run/")]
    # A provider it knows starts the run; once the session is held, it is not asked again.
    llm.enqueue(Reply.text(["ok"]), Reply.text(["ok"]))
    _, notes = run_to_end(host, {"message": "hi", "sessionId": "typo", "provider": "custom"})
    assert notes[-1].params["status"] == "complete"
    _, notes = run_to_end(host, {"message": "again", "sessionId": "typo", "provider": "x"})
    assert notes[-1].params["status"] == "complete"


def test_switching_a_sessions_model_takes_effect_from_its_next_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, notes = run_to_end(host, {"message": "first"})
    assert notes[0].params["model"] == "test-model"
    sid = run["sessionId"]
    switched = host.request("session/switchModel", {"sessionId": sid, "model": "other-model"})
    assert switched == {
        "sessionId": sid,
        "model": "other-model",
        "provider": "custom",
        "deferred": False,
    }
    llm.enqueue(Reply.text(["ok"]))
    _, notes = run_to_end(host, {"message": "second", "sessionId": sid})
    assert notes[0].params["model"] == "other-model"
    sent = [r for r in llm.requests if "second" in str(r.get("messages"))]
    assert sent and sent[0]["model"] == "other-model"
    assert host.request("session/status", {"sessionId": sid})["model"] == "other-model"
    # A provider hermes does not know is refused, and nothing changes.
    with pytest.raises(RpcError) as err:
        host.request(
            "session/switchModel", {"sessionId": sid, "model": "m", "provider": "no-such-provider"}
        )
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert host.request("session/status", {"sessionId": sid})["model"] == "other-model"


def test_switching_back_to_the_profiles_model_keeps_its_configured_context_length(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "first"})
    sid = run["sessionId"]

    def window() -> Any:
        return host.request("session/estimateContext", {"sessionId": sid})["contextLength"]

    assert window() == 131072  # config.yaml's model.context_length
    host.request("session/switchModel", {"sessionId": sid, "model": "other-model"})
    assert window() != 131072  # another model: hermes resolves its own window
    host.request("session/switchModel", {"sessionId": sid, "model": "test-model"})
    assert window() == 131072


def test_a_run_in_progress_keeps_its_model_when_a_switch_is_followed_by_an_estimate(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    _victim, run, ask = waiting(host, llm, tmp_path)
    sid = run["sessionId"]
    switched = host.request("session/switchModel", {"sessionId": sid, "model": "other-model"})
    assert switched["deferred"] is True
    host.request("session/estimateContext", {"sessionId": sid})  # must not apply the switch
    respond(host, run, ask, "deny")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert [r["model"] for r in llm.requests] == ["test-model", "test-model"]
    llm.enqueue(Reply.text(["ok"]))
    _, notes = run_to_end(host, {"message": "next", "sessionId": sid})
    assert notes[0].params["model"] == "other-model"  # from the next run on


def test_supervisor_status_is_answered_while_a_worker_is_still_starting(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    start_id = host.send_request("run/start", {"message": "hi", "profile": "work"})  # cold worker
    status_id = host.send_request("supervisor/status", {})
    status = host.response(status_id)
    (worker,) = status.result["workers"]
    assert worker["state"] == "starting"
    run = host.response(start_id).result
    host.wait_run_completed(run["runId"])
    order = [m.id for _, m in host.received if getattr(m, "id", None) in (start_id, status_id)]
    assert order == [status_id, start_id]


def test_a_host_that_stops_reading_loses_no_delta_and_keeps_order(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # 4 MB: more than the supervisor queues for the host (1 MiB) and the pipes hold,
    # so the worker's own writer stalls on a full pipe while its agent streams on.
    chunks = [f"c{i} " + "x" * 1000 for i in range(4000)]
    all_sent = threading.Event()
    llm.on_chunk_sent = lambda index, _text, _t: index == len(chunks) - 1 and all_sent.set()
    llm.enqueue(Reply.text(chunks))
    try:
        run = host.request("run/start", {"message": "flood"})
        host.pause_reading()
        assert all_sent.wait(60)
        host.resume_reading()
        host.wait_run_completed(run["runId"], timeout=60)
    finally:
        llm.on_chunk_sent = None
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert "".join(n.params["text"] for n in notes if n.method == "run/delta") == "".join(chunks)
    assert [n.method for n in notes].count("run/completed") == 1


def test_session_ids_with_quotes_and_unicode_are_routed_and_relayed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["one"]), Reply.text(["two"]))
    session = 'sess "quoted" \u00e9\u4e2d'
    run, notes = run_to_end(host, {"message": "hi", "sessionId": session})
    assert run["sessionId"] == session and all(n.params["sessionId"] == session for n in notes)
    _, notes2 = run_to_end(host, {"message": "again", "sessionId": session})
    assert notes2[-1].params["status"] == "complete"
    assert host.request("session/status", {"sessionId": session})["messageCount"] == 4


def test_run_notifications_have_exactly_the_documented_bytes_on_the_wire(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(['Hi \u00e9"!']))
    run, notes = run_to_end(host, {"message": "pin"})
    rid, sid = run["runId"], run["sessionId"]
    head = '{"jsonrpc":"2.0","method":"run/%s","params":' + (
        f'{{"runId":"{rid}","sessionId":"{sid}","seq":'
    )
    delta = next(n for n in notes if n.method == "run/delta")
    expected_delta = (head % "delta") + f'{delta.params["seq"]},"text":"Hi \u00e9\\"!"}}}}'
    done = notes[-1]
    used = done.params["result"]["usage"]  # the scripted model's counts; the order is pinned
    usage = (
        '{{"inputTokens":{inputTokens},"outputTokens":{outputTokens},"cacheReadTokens":0,'
        '"cacheWriteTokens":0,"reasoningTokens":0,"totalTokens":{totalTokens},'
        '"contextTokens":{contextTokens},"contextLength":131072,"costUsd":null}}'
    ).format(**used)
    expected_done = (head % "completed") + (
        f'{done.params["seq"]},"status":"complete","result":{{"finalResponse":"Hi \u00e9\\"!",'
        f'"messageCount":2,"apiCalls":1,"usage":{usage}}},"error":null}}}}'
    )
    assert used["inputTokens"] > 0 and used["outputTokens"] > 0
    assert used["totalTokens"] == used["inputTokens"] + used["outputTokens"]
    assert expected_delta.encode() in host.raw_frames
    assert expected_done.encode() in host.raw_frames


def test_estimate_context_gives_rough_tokens_against_the_models_window(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["a short answer"]))
    run, _ = run_to_end(host, {"message": "a short question"})
    sid = run["sessionId"]
    est = host.request("session/estimateContext", {"sessionId": sid})
    assert est["sessionId"] == sid and est["model"] == "test-model"
    assert est["contextLength"] == 131072  # the profile's model.context_length
    assert est["messageCount"] == 2 and est["toolCount"] > 0
    assert est["tokens"] > est["fixedTokens"] > 0
    assert est["fixedTokens"] == est["systemPromptTokens"] + est["toolTokens"]
    longer = [{"role": "user", "content": "word " * 2000}]
    big = host.request("session/estimateContext", {"sessionId": sid, "messages": longer})
    assert big["messageCount"] == 1 and big["tokens"] > est["tokens"] + 1000
    # A new session: no history yet, the same fixed cost.
    fresh = host.request("session/estimateContext", {"sessionId": "sess-estimate-new"})
    assert fresh["messageCount"] == 0 and fresh["fixedTokens"] == est["fixedTokens"]


def test_a_lone_surrogate_the_model_sends_reaches_the_host_as_the_replacement_character(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["half \ud83d", " of a pair, é"]))
    _run, notes = run_to_end(host, {"message": "odd text"})
    text = "".join(n.params["text"] for n in notes if n.method == "run/delta")
    assert text == "half \ufffd of a pair, é"
    assert notes[-1].params["status"] == "complete"
