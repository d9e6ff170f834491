"""A profile's skills through the real binary and real hermes-agent: skill/list shows
each, enabled or not, and skill/setEnabled turns one off or on for the profile's
agents as `hermes skills` does (hermes' skills.disabled), so that its slash command
and its place in the next agent's system prompt go and come back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, managed_host, received, refused
from .test_commands import add_skill


@pytest.fixture
def skilled(home: Path) -> Path:
    add_skill(home, "fruit-word", "Answers with a fruit.", "Always answer with PAPAYA.")
    add_skill(home, "veg-word", "Answers with a vegetable.", "Always answer with TURNIP.")
    return home


def listed(host: HostClient, **params: str) -> dict[str, bool]:
    return {s["name"]: s["enabled"] for s in host.request("skill/list", params)["skills"]}


def commands(host: HostClient) -> set[str]:
    return {c["name"] for c in host.request("command/list", {})["commands"]}


def prompt_of_next_agent(host: HostClient, llm: ScriptedLLM) -> str:
    llm.enqueue(Reply.text(["ok"]))
    host.wait_run_completed(host.request("run/start", {"message": "hi"})["runId"])
    return str(llm.requests[-1]["messages"][0]["content"])


def test_a_disabled_skill_is_listed_still_and_leaves_commands_and_the_next_agent(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    (skilled / "config.yaml").write_text("# my settings\n" + (skilled / "config.yaml").read_text())
    [fruit] = [s for s in host.request("skill/list", {})["skills"] if s["name"] == "fruit-word"]
    assert fruit == {
        "name": "fruit-word",
        "description": "Answers with a fruit.",
        "category": None,
        "enabled": True,
    }
    assert "fruit-word" in prompt_of_next_agent(host, llm)

    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    pushes = len(received(host, "command/listChanged")), len(received(host, "config/changed"))
    off = host.request("skill/setEnabled", {"name": "fruit-word", "enabled": False})
    assert off == {"skill": {**fruit, "enabled": False}}

    def both_pushed(_note: object = None) -> bool:
        now = len(received(host, "command/listChanged")), len(received(host, "config/changed"))
        return now[0] > pushes[0] and now[1] > pushes[1]

    if not both_pushed():
        host.wait_for(both_pushed, timeout=20)
    assert listed(host) == {"fruit-word": False, "veg-word": True}
    assert "/fruit-word" not in commands(host) and "/veg-word" in commands(host)
    prompt = prompt_of_next_agent(host, llm)
    assert "fruit-word" not in prompt and "veg-word" in prompt
    text = (skilled / "config.yaml").read_text()
    assert text.startswith("# my settings\n")
    assert yaml.safe_load(text)["skills"]["disabled"] == ["fruit-word"]

    on = host.request("skill/setEnabled", {"name": "fruit-word", "enabled": True})
    assert on["skill"]["enabled"] is True
    assert "/fruit-word" in commands(host)
    assert "fruit-word" in prompt_of_next_agent(host, llm)
    assert listed(host, profile="work") == {}  # the skills are the default profile's


def test_a_skill_disabled_for_the_cli_only_is_enabled_by_removing_it_there(
    skilled: Path, host: HostClient
) -> None:
    config = yaml.safe_load((skilled / "config.yaml").read_text())
    config["skills"] = {"platform_disabled": {"cli": ["veg-word"], "telegram": ["veg-word"]}}
    (skilled / "config.yaml").write_text(yaml.safe_dump(config))
    assert listed(host)["veg-word"] is False
    host.request("skill/setEnabled", {"name": "veg-word", "enabled": True})
    assert listed(host)["veg-word"] is True
    lists = yaml.safe_load((skilled / "config.yaml").read_text())["skills"]
    assert lists == {"platform_disabled": {"cli": [], "telegram": ["veg-word"]}}


def test_a_name_no_skill_has_is_unknown_skill_and_nothing_is_written(
    skilled: Path, host: HostClient
) -> None:
    before = (skilled / "config.yaml").read_bytes()
    err = refused(host, "skill/setEnabled", {"name": "fruit", "enabled": False})
    assert err.kind is ErrorType.UNKNOWN_SKILL
    assert err.data["name"] == "fruit"
    assert (skilled / "config.yaml").read_bytes() == before


def test_a_skills_list_the_managed_scope_pins_is_config_read_only(
    skilled: Path, start_host: StartHost, tmp_path: Path
) -> None:
    pinned = "skills:\n  disabled: [veg-word]\n"
    host = managed_host(start_host, tmp_path / "managed", "config.yaml", pinned)
    before = (skilled / "config.yaml").read_bytes()
    assert listed(host) == {"fruit-word": True, "veg-word": False}  # as hermes' agents see
    err = refused(host, "skill/setEnabled", {"name": "veg-word", "enabled": True})
    assert err.kind is ErrorType.CONFIG_READ_ONLY  # the file's lists never disabled it
    err = refused(host, "skill/setEnabled", {"name": "fruit-word", "enabled": False})
    assert err.kind is ErrorType.CONFIG_READ_ONLY
    assert err.data["keyPath"] == ["skills", "disabled"]
    assert (skilled / "config.yaml").read_bytes() == before


def test_a_skills_setting_hermes_cannot_read_as_lists_is_profile_unreadable_and_kept(
    skilled: Path, host: HostClient
) -> None:
    config = skilled / "config.yaml"
    config.write_text(config.read_text() + "skills: none-please\n")
    before = config.read_bytes()
    for method, params in [
        ("skill/list", {}),
        ("skill/setEnabled", {"name": "fruit-word", "enabled": False}),
    ]:
        err = refused(host, method, params)
        assert err.kind is ErrorType.PROFILE_UNREADABLE
        assert err.data["file"] == "config.yaml"
    assert config.read_bytes() == before


def toolsets(host: HostClient, **params: str) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in host.request("toolset/list", params)["toolsets"]}


def offered(llm: ScriptedLLM) -> set[str]:
    return {t["function"]["name"] for t in llm.requests[-1].get("tools") or []}


def test_a_disabled_toolset_leaves_the_next_agents_tools_and_comes_back(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    config = home / "config.yaml"
    config.write_text("# my settings\n" + config.read_text())
    listed = toolsets(host)
    terminal = listed["terminal"]
    assert terminal == {
        "name": "terminal",
        "label": "Terminal & Processes",
        "description": "terminal, process",
        "enabled": True,
        "tools": ["close_terminal", "process", "read_terminal", "terminal"],
    }
    assert "discord" not in listed  # not configurable for hermes' cli platform
    prompt_of_next_agent(host, llm)
    assert {"terminal", "process"} <= offered(llm)

    off = host.request("toolset/setEnabled", {"name": "terminal", "enabled": False})
    assert off == {"toolset": {**terminal, "enabled": False}}
    assert toolsets(host)["terminal"]["enabled"] is False
    text = config.read_text()
    assert text.startswith("# my settings\n")
    assert "terminal" not in yaml.safe_load(text)["platform_toolsets"]["cli"]
    prompt_of_next_agent(host, llm)
    assert not {"terminal", "process"} & offered(llm)
    assert "file" in host.request("tool/list", {})["enabledToolsets"]  # the others stay

    assert host.request("toolset/setEnabled", {"name": "terminal", "enabled": True})["toolset"][
        "enabled"
    ]
    prompt_of_next_agent(host, llm)
    assert {"terminal", "process"} <= offered(llm)


def test_enabling_a_toolset_the_profile_disables_everywhere_takes_it_off_that_list(
    host: HostClient, home: Path
) -> None:
    config = home / "profiles" / "work" / "config.yaml"
    settings = yaml.safe_load(config.read_text())
    settings["agent"]["disabled_toolsets"] = ["terminal", "web"]
    config.write_text(yaml.safe_dump(settings))
    assert toolsets(host, profile="work")["terminal"]["enabled"] is False
    host.request("toolset/setEnabled", {"profile": "work", "name": "terminal", "enabled": True})
    assert toolsets(host, profile="work")["terminal"]["enabled"] is True
    assert yaml.safe_load(config.read_text())["agent"]["disabled_toolsets"] == ["web"]


def test_a_name_no_toolset_has_is_unknown_toolset_and_nothing_is_written(
    host: HostClient, home: Path
) -> None:
    before = (home / "config.yaml").read_bytes()
    for name in ("terminals", "discord"):  # discord's is not the cli's to configure
        err = refused(host, "toolset/setEnabled", {"name": name, "enabled": False})
        assert err.kind is ErrorType.UNKNOWN_TOOLSET
        assert err.data["name"] == name
    assert (home / "config.yaml").read_bytes() == before


def test_a_toolsets_list_the_managed_scope_pins_is_config_read_only(
    start_host: StartHost, home: Path, tmp_path: Path
) -> None:
    pinned = "platform_toolsets:\n  cli: [file, terminal]\n"
    host = managed_host(start_host, tmp_path / "managed", "config.yaml", pinned)
    before = (home / "config.yaml").read_bytes()
    assert [n for n, t in toolsets(host).items() if t["enabled"]] == ["terminal", "file"]
    err = refused(host, "toolset/setEnabled", {"name": "web", "enabled": True})
    assert err.kind is ErrorType.CONFIG_READ_ONLY
    assert err.data["keyPath"] == ["platform_toolsets", "cli"]  # the pinned list decides
    assert (home / "config.yaml").read_bytes() == before
