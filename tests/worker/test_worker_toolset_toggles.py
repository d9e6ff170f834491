"""toolset_toggles on a real config.yaml, with a stand-in for hermes' rule: each
toolset is listed with whether the profile's agents get it, and a toggle writes
what hermes' rule changed, comments kept, or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.worker.config_file import ConfigFile, ReadOnly
from hermes_stdio.worker.toolset_toggles import HermesToolsets, ToolsetToggles, UnknownToolset

ROWS = [
    ("web", "Web Search & Scraping", "web_search, web_extract"),
    ("terminal", "Terminal & Processes", "terminal, process"),
    ("memory", "Memory", "persistent memory across sessions"),
]
TOOLS = {"web": ["web_search", "web_extract"], "terminal": ["terminal", "process"]}


def enabled(settings: dict[str, Any]) -> set[str]:
    """As hermes resolves it: the cli list, else every toolset; minus the disabled."""
    chosen = (settings.get("platform_toolsets") or {}).get("cli")
    names = set(chosen) if chosen is not None else {r[0] for r in ROWS}
    return names - set((settings.get("agent") or {}).get("disabled_toolsets") or [])


def apply(settings: dict[str, Any], chosen: set[str]) -> None:
    """hermes' save rule, in short: the list, and an enabled one leaves disabled_toolsets."""
    settings.setdefault("platform_toolsets", {})["cli"] = sorted(chosen)
    agent = settings.get("agent")
    if isinstance(agent, dict) and agent.get("disabled_toolsets"):
        agent["disabled_toolsets"] = [t for t in agent["disabled_toolsets"] if t not in chosen]


def toggles(path: Path) -> ToolsetToggles:
    config = ConfigFile(path)
    return ToolsetToggles(
        HermesToolsets(lambda: ROWS, lambda n: TOOLS.get(n, []), enabled, apply, lambda: config)
    )


def test_each_toolset_is_listed_in_hermes_order_with_whether_agents_get_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("agent:\n  disabled_toolsets: [web]\n")
    listed = toggles(path).listed()
    assert [(t.name, t.enabled) for t in listed] == [
        ("web", False),
        ("terminal", True),
        ("memory", True),
    ]
    assert (listed[1].label, listed[1].tools) == ("Terminal & Processes", ["process", "terminal"])


def test_a_toggle_writes_what_hermes_rule_changed_keeping_the_files_comments(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nagent:\n  max_turns: 4  # short\n  disabled_toolsets: [web]\n")
    off = toggles(path).set_enabled("terminal", False)
    assert (off.name, off.enabled) == ("terminal", False)
    text = path.read_text()
    assert "# mine" in text and "# short" in text
    assert yaml.safe_load(text) == {
        "agent": {"max_turns": 4, "disabled_toolsets": ["web"]},
        "platform_toolsets": {"cli": ["memory"]},
    }
    assert toggles(path).set_enabled("web", True).enabled
    assert yaml.safe_load(path.read_text()) == {
        "agent": {"max_turns": 4, "disabled_toolsets": []},
        "platform_toolsets": {"cli": ["memory", "web"]},
    }


def test_a_toggle_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    assert toggles(path).set_enabled("terminal", True).enabled
    assert path.read_text() == "model: m\n"


def test_a_name_not_listed_is_unknown_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    with pytest.raises(UnknownToolset):
        toggles(path).set_enabled("discord", False)
    assert path.read_text() == "model: m\n"


def test_what_the_managed_scope_pins_is_what_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    config = ConfigFile(path)

    def managed(settings: dict[str, Any]) -> dict[str, Any]:
        settings["platform_toolsets"] = {"cli": ["memory"]}
        return settings

    parts = HermesToolsets(lambda: ROWS, lambda n: [], enabled, apply, lambda: config, managed)
    assert [t.name for t in ToolsetToggles(parts).listed() if t.enabled] == ["memory"]
    assert ToolsetToggles(parts).set_enabled("web", False).enabled is False  # so already
    with pytest.raises(ReadOnly) as refused:  # written or not, the pinned list decides
        ToolsetToggles(parts).set_enabled("web", True)
    assert refused.value.key_path == ["platform_toolsets", "cli"]
    assert path.read_text() == "model: m\n"
