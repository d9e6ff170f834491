"""Runs through the real binary: streamed deltas, run results and the bytes on the wire."""

from __future__ import annotations

import threading

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import run_to_end


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


def test_a_lone_surrogate_the_model_sends_reaches_the_host_as_the_replacement_character(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["half \ud83d", " of a pair, é"]))
    _run, notes = run_to_end(host, {"message": "odd text"})
    text = "".join(n.params["text"] for n in notes if n.method == "run/delta")
    assert text == "half \ufffd of a pair, é"
    assert notes[-1].params["status"] == "complete"
