"""Compression done by the host, through the real binary and real hermes-agent: the run
asks with compression/requested, the host's messages replace the conversation (in
memory and in the session database), and every request is closed by
compression/resolved; and session/compress, a run that only compresses."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError

from .conftest import StartHost, compress_under_new_ids, worker_pids

SUMMARY = [
    {"role": "user", "content": "Summary so far: the user asked to remember a fruit."},
    {"role": "assistant", "content": "Noted."},
]


def remembered(host: HostClient, llm: ScriptedLLM) -> str:
    """A session with one finished turn that mentions KIWI, compressed by the host."""
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    run = host.request("run/start", {"message": "remember KIWI", "compression": "host"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    return str(run["sessionId"])


def asking(host: HostClient, llm: ScriptedLLM, sid: str) -> tuple[dict[str, Any], Notification]:
    """The session's next run, waiting on its forced compression request."""
    llm.enqueue(Reply.text(["fine"]))
    run = host.request(
        "run/start", {"sessionId": sid, "message": "what now?", "forceCompress": True}
    )
    ask = host.wait_for(
        lambda n: n.method == "compression/requested" and n.params["runId"] == run["runId"],
        timeout=60,
    )
    return run, ask


def compress_asking(host: HostClient, sid: str) -> tuple[dict[str, Any], Notification]:
    """A session/compress run of a host-compressed session, waiting on its request."""
    run = host.request("session/compress", {"sessionId": sid})
    ask = host.wait_for(
        lambda n: n.method == "compression/requested" and n.params["runId"] == run["runId"],
        timeout=60,
    )
    return run, ask


def respond(host: HostClient, run: dict[str, Any], ask: Notification, **answer: Any) -> Any:
    params = {"runId": run["runId"], "compressionId": ask.params["compressionId"], **answer}
    return host.request("compression/respond", params)


def resolved(host: HostClient, run_id: str) -> dict[str, Any]:
    notes = host.run_notifications(run_id)
    return next(n.params for n in notes if n.method == "compression/resolved")


def turn_request(llm: ScriptedLLM, question: str) -> list[dict[str, Any]]:
    """The conversation (without the system prompt) the model got for ``question``."""
    for body in reversed(llm.requests):
        messages = body.get("messages") or []
        if messages and messages[-1].get("content") == question:
            return [m for m in messages if m.get("role") != "system"]
    raise AssertionError(f"no model request ends with {question!r}")


def said(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages]


def test_the_hosts_compressed_conversation_replaces_the_session_for_the_model_and_the_db(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, ask = asking(host, llm, sid)
    assert said(ask.params["messages"]) == [
        ("user", "remember KIWI"),
        ("assistant", "I will remember KIWI."),
    ]
    assert ask.params["messageCount"] == 2
    assert ask.params["tokens"] > 0
    assert ask.params["contextLength"] == 131072
    assert ask.params["timeoutMs"] == 180_000
    assert respond(host, run, ask, messages=SUMMARY) == {"outcome": "compressed"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"

    closed = resolved(host, run["runId"])
    assert closed["outcome"] == "compressed" and closed["messageCount"] == 2
    assert closed["tokens"] > 0 and closed["error"] is None
    sent = turn_request(llm, "what now?")
    assert said(sent) == [*said(SUMMARY), ("user", "what now?")]
    expected = [*said(SUMMARY), ("user", "what now?"), ("assistant", "fine")]
    history = host.request("session/history", {"sessionId": sid})
    assert said(history["messages"]) == expected

    # The database holds the compressed conversation once, not beside the old one.
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert said(host.request("session/history", {"sessionId": sid})["messages"]) == expected


def test_a_host_error_leaves_the_conversation_as_it_was(host: HostClient, llm: ScriptedLLM) -> None:
    sid = remembered(host, llm)
    run, ask = asking(host, llm, sid)
    assert respond(host, run, ask, error="summariser offline") == {"outcome": "failed"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    closed = resolved(host, run["runId"])
    assert (closed["outcome"], closed["error"]) == ("failed", "summariser offline")
    assert closed["messageCount"] is None and closed["tokens"] is None
    assert said(turn_request(llm, "what now?"))[0] == ("user", "remember KIWI")


def test_an_interrupt_cancels_a_waiting_compression_request(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, ask = asking(host, llm, sid)
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": True}
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "interrupted"
    assert resolved(host, run["runId"])["outcome"] == "cancelled"
    with pytest.raises(RpcError) as err:
        respond(host, run, ask, messages=SUMMARY)
    assert err.value.kind is ErrorType.UNKNOWN_COMPRESSION


def test_a_worker_killed_while_compression_waits_closes_the_request_then_the_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, ask = asking(host, llm, sid)
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    done = host.wait_run_completed(run["runId"])
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[-2].method == "compression/resolved"
    assert notes[-2].params == {
        "runId": run["runId"],
        "sessionId": sid,
        "seq": done.params["seq"] - 1,
        "compressionId": ask.params["compressionId"],
        "outcome": "cancelled",
        "messageCount": None,
        "tokens": None,
        "error": None,
    }


def test_bad_compression_answers_get_named_errors(host: HostClient, llm: ScriptedLLM) -> None:
    sid = remembered(host, llm)
    run, ask = asking(host, llm, sid)
    bad: list[dict[str, Any]] = [
        {},
        {"messages": SUMMARY, "error": "both"},
        {"messages": []},
        {"messages": [{"role": "narrator", "content": "x"}]},
        {"messages": ["not an object"]},
    ]
    for answer in bad:
        with pytest.raises(RpcError) as err:
            respond(host, run, ask, **answer)
        assert err.value.kind is ErrorType.INVALID_PARAMS, answer
    with pytest.raises(RpcError) as err:
        host.request(
            "compression/respond",
            {"runId": run["runId"], "compressionId": "cmp_other", "messages": SUMMARY},
        )
    assert err.value.kind is ErrorType.UNKNOWN_COMPRESSION
    assert respond(host, run, ask, messages=SUMMARY) == {"outcome": "compressed"}
    with pytest.raises(RpcError) as err:
        respond(host, run, ask, messages=SUMMARY)  # answered already
    assert err.value.kind is ErrorType.UNKNOWN_COMPRESSION
    host.wait_run_completed(run["runId"])


def test_an_agent_compressed_session_never_asks_the_host(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    first = host.request("run/start", {"message": "remember KIWI"})
    host.wait_run_completed(first["runId"])
    llm.enqueue(Reply.text(["fine"]))
    run = host.request(
        "run/start",
        {"sessionId": first["sessionId"], "message": "what now?", "forceCompress": True},
    )
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    methods = {n.method for n in host.run_notifications(run["runId"])}
    assert "compression/requested" not in methods


def test_a_conversation_near_the_window_is_compressed_by_the_host_before_the_model_call(
    host: HostClient, llm: ScriptedLLM
) -> None:
    filler = "the quick brown fox jumps over the lazy dog " * 9000  # ~100K tokens
    history = [
        {"role": "user", "content": f"keep this in mind: {filler}"},
        {"role": "assistant", "content": "Kept."},
    ]
    llm.enqueue(Reply.text(["fine"]))
    run = host.request(
        "run/start",
        {"message": "what now?", "compression": "host", "conversationHistory": history},
    )
    ask = host.wait_for(
        lambda n: n.method == "compression/requested" and n.params["runId"] == run["runId"],
        timeout=60,
    )
    assert ask.params["tokens"] > ask.params["contextLength"] // 2
    assert said(ask.params["messages"])[-1] == ("user", "what now?")
    kept = [*SUMMARY, {"role": "user", "content": "what now?"}]
    assert respond(host, run, ask, messages=kept) == {"outcome": "compressed"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert said(turn_request(llm, "what now?")) == said(kept)


def test_a_sessions_host_compression_outlives_its_worker(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)  # said compression: host once, in its first run
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    run, ask = asking(host, llm, sid)  # a new worker, a run/start that does not say
    assert said(ask.params["messages"])[0] == ("user", "remember KIWI")
    assert respond(host, run, ask, messages=SUMMARY) == {"outcome": "compressed"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_session_hermes_compressed_under_a_new_id_resumes_after_a_crash_where_it_went_on(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    compress_under_new_ids(home)
    host = start_host()
    host.initialize()
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    first = host.request("run/start", {"message": "remember KIWI"})
    sid = first["sessionId"]
    host.wait_run_completed(first["runId"])
    for i in range(3):  # enough turns for hermes to summarise the middle ones
        llm.enqueue(Reply.text([f"reply {i}"]))
        run = host.request("run/start", {"sessionId": sid, "message": f"filler {i}"})
        host.wait_run_completed(run["runId"])
    llm.enqueue(Reply.text(["the user wants KIWI remembered"]), Reply.text(["fine"]))
    run = host.request("run/start", {"sessionId": sid, "message": "go", "forceCompress": True})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"sessionId": sid, "message": "after compression"})
    host.wait_run_completed(run["runId"])
    before_crash = turn_request(llm, "after compression")
    assert ("user", "filler 1") not in said(before_crash)  # summarised away

    pid = worker_pids(host)[("default", None)]
    os.kill(pid, signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"sessionId": sid, "message": "after the crash"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    resumed = said(turn_request(llm, "after the crash"))
    # The compressed conversation and the turns after it, not the rows hermes ended.
    assert resumed[: len(before_crash)] == [*said(before_crash)[:-1], ("user", "after compression")]
    assert resumed[len(before_crash)] == ("assistant", "ok")
    history = host.request("session/history", {"sessionId": sid})["messages"]
    assert [m["content"] for m in history][-2:] == ["after the crash", "ok"]
    # Listed once, under the id the host knows, with the continuation's figures.
    [listed] = host.request("session/listStored", {})["sessions"]
    assert listed["sessionId"] == sid
    assert listed["messageCount"] == len(resumed) + 1  # and the reply to it
    # and what every row of the conversation used, added up (the database holds no other)
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute("SELECT api_call_count, input_tokens FROM sessions").fetchall()
    assert len(rows) == 2 and all(calls > 0 for calls, _ in rows)
    used = listed["usage"]
    assert (used["apiCalls"], used["inputTokens"]) == tuple(map(sum, zip(*rows, strict=True)))


def filled(host: HostClient, llm: ScriptedLLM) -> str:
    """A session with four finished turns: enough for hermes to summarise the middle."""
    sid = "compacted"
    for i, said_now in enumerate(("remember KIWI", "filler 0", "filler 1", "filler 2")):
        llm.enqueue(Reply.text([f"reply {i}"]))
        run = host.request("run/start", {"sessionId": sid, "message": said_now})
        assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    return sid


def test_session_compress_summarises_a_history_without_a_turn_and_stores_it(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = filled(host, llm)
    llm.clear()
    llm.enqueue(Reply.text(["the user wants KIWI remembered"]))
    run = host.request("session/compress", {"sessionId": sid, "focus": "the fruit"})
    assert run == {"runId": run["runId"], "sessionId": sid}
    done = host.wait_run_completed(run["runId"]).params
    assert done["status"] == "complete"
    assert done["result"]["finalResponse"] is None
    # hermes says what it does; its summary call is not the run's usage (its auxiliary client).
    notes = host.run_notifications(run["runId"])
    assert [n.method for n in notes] == ["run/started", "run/event", "run/completed"]
    assert notes[1].params["event"]["type"] == "status"
    assert done["result"]["usage"]["totalTokens"] == 0
    # One model call, hermes' summary, which was told the focus; no turn.
    [summary_call] = llm.requests
    assert "the fruit" in str(summary_call["messages"])
    history = host.request("session/history", {"sessionId": sid})
    assert history["messageCount"] == done["result"]["messageCount"] < 8
    assert ("user", "filler 1") not in said(history["messages"])

    # Stored at once: a new worker reads back the compressed conversation.
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    stored = host.request("session/history", {"sessionId": sid})["messages"]
    assert said(stored) == said(history["messages"])
    llm.enqueue(Reply.text(["ok"]))
    after = host.request("run/start", {"sessionId": sid, "message": "after compression"})
    assert host.wait_run_completed(after["runId"]).params["status"] == "complete"
    assert said(turn_request(llm, "after compression"))[:-1] == said(stored)


def test_session_compress_of_a_host_compressed_session_asks_the_host(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, ask = compress_asking(host, sid)
    assert said(ask.params["messages"]) == [
        ("user", "remember KIWI"),
        ("assistant", "I will remember KIWI."),
    ]
    assert respond(host, run, ask, messages=SUMMARY) == {"outcome": "compressed"}
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["messageCount"]) == ("complete", 2)
    assert resolved(host, run["runId"])["outcome"] == "compressed"
    assert host.request("session/history", {"sessionId": sid})["messages"] == SUMMARY


def test_an_interrupted_session_compress_leaves_the_history_and_a_busy_one_is_refused(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, _ = compress_asking(host, sid)
    with pytest.raises(RpcError) as err:
        host.request("session/compress", {"sessionId": sid})
    assert err.value.kind is ErrorType.SESSION_BUSY
    assert err.value.data["runId"] == run["runId"]
    host.request("run/interrupt", {"runId": run["runId"]})
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    assert resolved(host, run["runId"])["outcome"] == "cancelled"
    assert said(host.request("session/history", {"sessionId": sid})["messages"]) == [
        ("user", "remember KIWI"),
        ("assistant", "I will remember KIWI."),
    ]
    with pytest.raises(RpcError) as err:
        host.request("session/compress", {"sessionId": "never-seen"})
    assert err.value.kind is ErrorType.UNKNOWN_SESSION
    assert host.request("session/status", {"sessionId": "never-seen"})["loaded"] is False
    with pytest.raises(RpcError) as err:
        host.request("session/compress", {"sessionId": sid, "focus": "x" * 1001})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.focus"


def test_a_session_compress_whose_worker_dies_still_ends_with_one_run_completed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = remembered(host, llm)
    run, _ = compress_asking(host, sid)
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    done = host.wait_run_completed(run["runId"]).params
    assert done["error"]["type"] == RunErrorType.WORKER_CRASHED
    assert resolved(host, run["runId"])["outcome"] == "cancelled"
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    completed = [n for n in host.run_notifications(run["runId"]) if n.method == "run/completed"]
    assert len(completed) == 1
