"""tool/list through the real binary and real hermes-agent: the tools the model is offered,
for a session's agent exactly those its requests carry, and for a new agent what the
profile's config.yaml gives it; and run/start's disabledToolsets, a session's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError


def names(listed: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in listed["tools"]}


def test_a_sessions_tools_are_those_its_model_requests_carry(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(run["runId"])
    offered = {tool["function"]["name"] for tool in llm.requests[-1]["tools"]}

    listed = host.request("tool/list", {"sessionId": run["sessionId"]})
    assert names(listed) == offered
    [terminal] = [tool for tool in listed["tools"] if tool["name"] == "terminal"]
    assert terminal["toolset"] == "terminal" and terminal["description"]
    assert [tool["name"] for tool in listed["tools"]] == sorted(offered)
    assert listed["enabledToolsets"] and "terminal" in listed["enabledToolsets"]
    assert listed["disabledToolsets"] == []
    # A new agent of the profile would be offered the same.
    assert names(host.request("tool/list", {})) == offered


def test_a_profiles_disabled_toolsets_are_left_out(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    path = home / "profiles" / "work" / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["agent"] |= {"disabled_toolsets": ["terminal"]}
    path.write_text(yaml.safe_dump(config))

    work = host.request("tool/list", {"profile": "work"})
    assert work["disabledToolsets"] == ["terminal"]
    assert not {"terminal", "process"} & names(work)
    assert {"terminal", "process"} <= names(host.request("tool/list", {"profile": "play"}))
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "profile": "work"})
    host.wait_run_completed(run["runId"])
    assert names(work) == {tool["function"]["name"] for tool in llm.requests[-1]["tools"]}


def test_a_run_starts_disabled_toolsets_leave_their_tools_out_of_the_sessions_requests(
    host: HostClient, llm: ScriptedLLM
) -> None:
    def offered_after(**params: Any) -> set[str]:
        llm.enqueue(Reply.text(["ok"]))
        run = host.request("run/start", {"message": "hi", "sessionId": "chat", **params})
        assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
        return {tool["function"]["name"] for tool in llm.requests[-1]["tools"]}

    everything = offered_after()
    gone = {"terminal", "process", "read_file", "write_file", "patch", "search_files"}
    assert gone <= everything
    chat = offered_after(disabledToolsets=["terminal", "file"])
    assert chat == everything - gone
    assert offered_after() == chat  # kept for the session's later turns
    listed = host.request("tool/list", {"sessionId": "chat"})
    assert names(listed) == chat
    assert listed["disabledToolsets"] == ["file", "terminal"]
    status = host.request("session/status", {"sessionId": "chat"})
    assert status["disabledToolsets"] == ["file", "terminal"]
    assert status["messageCount"] == 6  # one conversation throughout
    assert offered_after(disabledToolsets=[]) == everything
    assert host.request("session/status", {"sessionId": "chat"})["disabledToolsets"] is None


def test_an_unknown_toolset_is_invalid_params_and_no_session_is_made(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request(
            "run/start", {"message": "hi", "sessionId": "never", "disabledToolsets": ["nope"]}
        )
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.disabledToolsets"
    assert host.request("session/status", {"sessionId": "never"})["loaded"] is False
