"""Runs through the real binary: a run's model and provider, switching them, estimates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import run_to_end
from .test_approvals import respond, waiting


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
    # hermes' breakdown, a context meter's segments: about the whole.
    parts = {p["id"]: p["tokens"] for p in est["breakdown"]}
    assert {"system_prompt", "tool_definitions", "conversation"} <= set(parts)
    assert all(n > 0 for n in parts.values())
    assert abs(sum(parts.values()) - est["tokens"]) <= est["tokens"] // 10
    grown = {p["id"]: p["tokens"] for p in big["breakdown"]}
    assert grown["conversation"] > parts["conversation"] + 1000
    told = {"sessionId": sid, "instructions": "Answer in French. " * 40}
    own = host.request("session/estimateContext", told)["breakdown"]
    assert [p["tokens"] for p in own if p["id"] == "instructions"] == [180]
    # What the provider counted for the last request: none yet for a new session.
    assert est["lastPromptTokens"] > 0 and fresh["lastPromptTokens"] is None
