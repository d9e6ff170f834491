"""tool/list through the real binary and real hermes-agent: the tools the model is offered,
for a session's agent exactly those its requests carry, and for a new agent what the
profile's config.yaml gives it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM


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
