"""model/oneShot through the real binary and real hermes-agent: one request to a model
outside any conversation (hermes' one-shot), with hermes' commit-message prompt or the
host's own, with a session's model when asked, refused clearly when malformed or when
the model gives no answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import refused, run_to_end


def asked(llm: ScriptedLLM, before: int) -> dict[str, Any]:
    [request] = llm.requests[before:]
    return dict(request)


def test_a_commit_message_is_written_with_hermes_prompt_and_no_session_is_made(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["```\nfeat: greet the user\n```"]))
    before = len(llm.requests)
    prompt = {"diff": "+print('hello')", "recentCommits": "fix: spell hello", "avoid": "feat: hi"}
    got = host.request("model/oneShot", {"commitMessage": prompt}, timeout=60)
    assert got == {"text": "feat: greet the user"}  # hermes takes the fence off
    request = json.dumps(asked(llm, before)["messages"])
    assert "Conventional Commits" in request  # hermes' own instructions
    for given in ("+print('hello')", "fix: spell hello", "feat: hi"):
        assert json.dumps(given)[1:-1] in request
    assert host.request("session/list", {})["sessions"] == []


def test_a_hosts_own_prompt_goes_as_it_is_with_its_settings(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Kiwi plan"]))
    before = len(llm.requests)
    params = {"instructions": "Name this.", "input": "plans for kiwi"}
    got = host.request("model/oneShot", {**params, "temperature": 0.9}, timeout=60)
    assert got == {"text": "Kiwi plan"}
    sent = asked(llm, before)
    assert sent["messages"] == [
        {"role": "system", "content": "Name this."},
        {"role": "user", "content": "plans for kiwi"},
    ]
    assert sent["temperature"] == 0.9 and not sent.get("stream")


def test_a_sessions_one_shot_asks_its_model_and_leaves_its_history_alone(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "hello", "model": "other-model"})
    sid = run["sessionId"]
    llm.enqueue(Reply.text(["a summary"]))
    before = len(llm.requests)
    params = {"input": "summarize", "sessionId": sid}
    assert host.request("model/oneShot", params, timeout=60) == {"text": "a summary"}
    assert asked(llm, before)["model"] == "other-model"
    history = host.request("session/history", {"sessionId": sid})["messages"]
    assert [m["content"] for m in history] == ["hello", "ok"]


def test_a_provider_error_is_model_call_failed(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(*[Reply.error(400, "context too long")] * 3)
    with pytest.raises(RpcError) as err:
        host.request("model/oneShot", {"input": "hi"}, timeout=90)
    assert err.value.kind is ErrorType.MODEL_CALL_FAILED


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "params.input"),
        ({"input": "  ", "instructions": ""}, "params.input"),
        ({"commitMessage": {"diff": "+x"}, "input": "and this"}, "params.commitMessage"),
        ({"input": "x" * 1_048_577}, "params.input"),
        ({"commitMessage": {"diff": "x" * 1_048_577}}, "params.commitMessage.diff"),
        (
            {"commitMessage": {"diff": "+x", "recentCommits": "x" * 1_048_577}},
            "params.commitMessage.recentCommits",
        ),
        ({"input": "hi", "temperature": 2.5}, "params.temperature"),
        ({"commitMessage": {}}, "params.commitMessage.diff"),
    ],
)
def test_a_malformed_one_shot_is_invalid_params_naming_the_field(
    host: HostClient, llm: ScriptedLLM, params: dict[str, Any], field: str
) -> None:
    before = len(llm.requests)
    err = refused(host, "model/oneShot", params)
    assert err.kind is ErrorType.INVALID_PARAMS and err.data["field"] == field
    assert len(llm.requests) == before
