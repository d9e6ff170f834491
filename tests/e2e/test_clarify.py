"""The agent's clarify tool through the real binary and real hermes-agent: the question
reaches the host as clarify/requested and the host's answer reaches the agent."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError


def ask(llm: ScriptedLLM, question: str, choices: list[str] | None = None) -> None:
    args: dict[str, Any] = {"question": question}
    if choices is not None:
        args["choices"] = choices
    llm.enqueue(Reply.tool_call("clarify", args), Reply.text(["thanks"]))


def requested(host: HostClient, run_id: str) -> Notification:
    return host.wait_for(
        lambda n: n.method == "clarify/requested" and n.params["runId"] == run_id, timeout=60
    )


def tool_response(host: HostClient, run_id: str) -> Any:
    for n in host.run_notifications(run_id):
        event = n.params.get("event") or {}
        if event.get("type") == "tool.completed" and event.get("name") == "clarify":
            return json.loads(event["result"])
    raise AssertionError("no clarify tool.completed")


def test_the_hosts_answer_reaches_the_agent(host: HostClient, llm: ScriptedLLM) -> None:
    ask(llm, "Which colour?", ["red", "blue"])
    run = host.request("run/start", {"message": "paint it"})
    question = requested(host, run["runId"])
    assert question.params["question"] == "Which colour?"
    assert question.params["choices"] == ["red", "blue"]
    assert question.params["timeoutMs"] > 0
    answer = {"runId": run["runId"], "clarifyId": question.params["clarifyId"], "answer": "teal"}
    assert host.request("clarify/respond", answer) == {"outcome": "answered"}
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "complete"
    assert tool_response(host, run["runId"])["user_response"] == "teal"
    notes = host.run_notifications(run["runId"])
    [resolved] = [n for n in notes if n.method == "clarify/resolved"]
    assert resolved.params["outcome"] == "answered" and resolved.params["answer"] == "teal"
    assert question.params["seq"] < resolved.params["seq"] < done.params["seq"]
    # The model's next call carries the answer as the tool's result.
    assert any("teal" in json.dumps(m) for m in llm.requests[-1]["messages"])
    with pytest.raises(RpcError) as err:
        host.request("clarify/respond", answer)
    assert err.value.kind is ErrorType.UNKNOWN_CLARIFY


def test_an_unanswered_question_times_out_and_the_run_goes_on(
    start_host: Any, home: Path, llm: ScriptedLLM
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["agent"]["clarify_timeout"] = 1
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    ask(llm, "Open question?")
    run = host.request("run/start", {"message": "go"})
    question = requested(host, run["runId"])
    assert question.params["choices"] is None and question.params["timeoutMs"] == 1000
    resolved = host.wait_for(lambda n: n.method == "clarify/resolved", timeout=30)
    assert resolved.params["outcome"] == "timed_out" and resolved.params["answer"] is None
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert "did not answer" in tool_response(host, run["runId"])["user_response"]


def test_interrupting_the_run_cancels_its_question(host: HostClient, llm: ScriptedLLM) -> None:
    ask(llm, "Wait for me?")
    run = host.request("run/start", {"message": "go"})
    requested(host, run["runId"])
    host.request("run/interrupt", {"runId": run["runId"]})
    resolved = host.wait_for(lambda n: n.method == "clarify/resolved", timeout=30)
    assert resolved.params["outcome"] == "cancelled"
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"


def test_bad_clarify_answers_get_named_errors(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(Reply.text(["hi"]))
    run = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(run["runId"])
    cases = [
        ({"runId": "run_nope", "clarifyId": "c", "answer": "x"}, ErrorType.UNKNOWN_RUN),
        ({"runId": run["runId"], "clarifyId": "c", "answer": "x"}, ErrorType.UNKNOWN_CLARIFY),
        ({"runId": run["runId"], "clarifyId": "c"}, ErrorType.INVALID_PARAMS),
        ({"runId": run["runId"], "clarifyId": "c", "answer": 3}, ErrorType.INVALID_PARAMS),
    ]
    for params, kind in cases:
        with pytest.raises(RpcError) as err:
            host.request("clarify/respond", params)
        assert err.value.kind is kind, params


def test_a_worker_killed_while_a_question_waits_closes_it_then_the_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    ask(llm, "Still there?")
    run = host.request("run/start", {"message": "go"})
    question = requested(host, run["runId"])
    os.kill(host.request("supervisor/status")["workers"][0]["pid"], signal.SIGKILL)
    done = host.wait_run_completed(run["runId"])
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[-2].method == "clarify/resolved"
    assert notes[-2].params["clarifyId"] == question.params["clarifyId"]
    assert notes[-2].params["outcome"] == "cancelled" and notes[-2].params["answer"] is None
    assert done.params["status"] == "error"
