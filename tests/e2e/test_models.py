"""model/list through the real binary and real hermes-agent: the models a profile can use,
by provider, as hermes' own picker lists them, with the current choice marked."""

from __future__ import annotations

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError


def test_the_profiles_endpoint_and_model_are_listed_and_marked_current(
    host: HostClient, llm: ScriptedLLM
) -> None:
    listed = host.request("model/list", {})
    assert (listed["model"], listed["provider"]) == ("test-model", "custom")
    [custom] = [p for p in listed["providers"] if p["slug"] == "custom"]
    assert custom["current"] and custom["userDefined"] and custom["authenticated"]
    assert "test-model" in custom["models"]
    assert custom["apiUrl"] == llm.base_url
    assert [p["slug"] for p in listed["providers"] if p["current"]] == ["custom"]
    assert all(p["authenticated"] for p in listed["providers"])
    refreshed = host.request("model/list", {"refresh": True})
    assert (
        "test-model" in next(p for p in refreshed["providers"] if p["slug"] == "custom")["models"]
    )


def test_a_sessions_own_model_is_the_current_one_for_that_session(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "model": "other-model"})
    host.wait_run_completed(run["runId"])
    mine = host.request("model/list", {"sessionId": run["sessionId"]})
    assert (mine["model"], mine["provider"]) == ("other-model", "custom")
    assert host.request("model/list", {})["model"] == "test-model"


def test_model_list_of_an_unknown_profile_is_unknown_profile(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request("model/list", {"profile": "nobody"})
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE
