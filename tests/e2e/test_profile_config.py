"""A profile's config.yaml shapes its agents the way hermes' CLI reads it, through the
real binary and real hermes-agent: toolsets (the CLI platform's, minus disabled ones)
and reasoning effort reach the model request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost


def turn_request(host: HostClient, llm: ScriptedLLM, profile: str) -> dict[str, Any]:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "profile": profile})
    host.wait_run_completed(run["runId"])
    return next(body for body in reversed(llm.requests) if body.get("tools"))


def tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body["tools"]}


def test_disabled_toolsets_and_reasoning_effort_from_config_reach_the_model(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    path = home / "profiles" / "work" / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["agent"] |= {"disabled_toolsets": ["terminal"], "reasoning_effort": "high"}
    path.write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()

    plain = turn_request(host, llm, "play")  # the same defaults, nothing configured
    assert {"terminal", "process"} <= tool_names(plain)
    assert "reasoning_effort" not in plain
    # The CLI platform's toolsets, not every toolset hermes has.
    assert not {"project_create", "project_list"} & tool_names(plain)

    configured = turn_request(host, llm, "work")
    assert not {"terminal", "process"} & tool_names(configured)
    assert configured["reasoning_effort"] == "high"
