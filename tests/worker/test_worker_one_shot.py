"""worker/one_shot.py: a one-shot request goes to hermes' run_oneshot with hermes' commit
prompt or the host's own, with a session's agent's runtime when given; whatever hermes
raises is model_call_failed."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.protocol import providers as pv
from hermes_stdio.wire import ErrorType, RpcError
from hermes_stdio.worker import one_shot


class Agent:
    provider, model, base_url, api_mode = "custom", "m1", "http://127.0.0.1:1/v1", ""

    def api_key(self) -> str:  # a credential pool's getter: handed on as it is
        return "k"


def recorded() -> tuple[list[dict[str, Any]], Any]:
    calls: list[dict[str, Any]] = []

    def run_oneshot(**kw: Any) -> str:
        calls.append(kw)
        return "done"

    return calls, run_oneshot


def test_a_commit_message_uses_hermes_template_and_a_sessions_runtime() -> None:
    calls, run = recorded()
    agent = Agent()
    prompt = pv.CommitMessagePrompt(diff="+x", recent_commits="fix: y")
    assert one_shot.ask(run, agent, pv.ModelOneShotParams(commit_message=prompt)) == "done"
    [kw] = calls
    assert kw["template"] == "commit_message" and "instructions" not in kw
    assert kw["variables"] == {"diff": "+x", "recent_commits": "fix: y", "avoid": None}
    assert (kw["task"], kw["temperature"]) == ("title_generation", 0.3)
    runtime = kw["main_runtime"]
    assert runtime["model"] == "m1" and runtime["api_key"] == agent.api_key
    assert "api_mode" not in runtime  # blank: hermes' own choice


def test_the_hosts_prompt_goes_as_given_without_a_session() -> None:
    calls, run = recorded()
    params = pv.ModelOneShotParams(instructions="Be short.", input="hi", temperature=0.0)
    one_shot.ask(run, None, params)
    [kw] = calls
    assert (kw["instructions"], kw["user_input"], kw["temperature"]) == ("Be short.", "hi", 0.0)
    assert kw["main_runtime"] is None


def test_whatever_hermes_raises_is_model_call_failed() -> None:
    def run_oneshot(**kw: Any) -> str:
        raise RuntimeError("no LLM provider configured")

    with pytest.raises(RpcError) as err:
        one_shot.ask(run_oneshot, None, pv.ModelOneShotParams(input="hi"))
    assert err.value.kind is ErrorType.MODEL_CALL_FAILED
    assert "no LLM provider configured" in err.value.message
