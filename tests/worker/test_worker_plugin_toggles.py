"""plugin_toggles on a real config.yaml: every plugin hermes finds is listed with whether
the config enables it (hermes' loader's rule) and whether this worker loaded it, and a
toggle changes hermes' plugins.enabled and plugins.disabled (comments kept) only as far
as needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.worker.config_file import ConfigFile, ReadOnly, Unusable
from hermes_stdio.worker.plugin_toggles import (
    Found,
    HermesPlugins,
    PluginToggles,
    UnknownPlugin,
)

FOUND: list[Found] = [
    ("greeter", "1.2", "Greets", "user", "greeter"),
    ("langfuse", "", "", "bundled", "observability/langfuse"),
    ("exa", "0.1", "Search", "bundled", "web/exa"),
]
LOADED: list[dict[str, Any]] = [
    {"key": "greeter", "name": "greeter", "kind": "standalone", "enabled": True, "hooks": 2},
    {
        "key": "observability/langfuse",
        "name": "langfuse",
        "kind": "standalone",
        "enabled": False,
        "error": "not enabled in config",
    },
    {"key": "web/exa", "name": "exa", "kind": "backend", "enabled": True, "tools": 1},
    {  # hermes' CLI lists no project plugin; the worker that loaded one does
        "key": "mine",
        "name": "mine",
        "kind": "standalone",
        "source": "project",
        "version": "2",
        "enabled": True,
        "commands": 1,
    },
]


def toggles(path: Path, managed: Any = None) -> PluginToggles:
    config = ConfigFile(path)
    parts = HermesPlugins(lambda: list(FOUND), lambda: [dict(p) for p in LOADED], lambda: config)
    if managed is not None:
        parts = HermesPlugins(parts.found, parts.loaded, parts.config, managed)
    return PluginToggles(parts)


def states(t: PluginToggles) -> dict[str, tuple[bool, bool]]:
    return {p.key: (p.enabled, p.active) for p in t.listed()}


def test_every_plugin_is_listed_by_key_with_the_configs_say_and_the_workers_state(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("plugins:\n  enabled: [greeter, langfuse]\n  disabled: [web/exa]\n")
    listed = toggles(path).listed()
    assert [p.key for p in listed] == ["greeter", "mine", "observability/langfuse", "web/exa"]
    assert states(toggles(path)) == {
        "greeter": (True, True),
        "mine": (False, True),  # loaded when the worker started; not so any more
        "observability/langfuse": (True, False),  # by its manifest's name: the next worker
        "web/exa": (False, True),  # a bundled backend, but disabled
    }
    greeter, mine, langfuse, _ = listed
    assert (greeter.version, greeter.description, greeter.hooks, greeter.reason) == (
        "1.2",
        "Greets",
        2,
        None,
    )
    assert (mine.source, mine.version, mine.description, mine.commands) == ("project", "2", None, 1)
    assert (langfuse.version, langfuse.reason) == (None, "not enabled in config")


def test_a_bundled_backend_is_enabled_unless_disabled_and_another_only_when_named(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    assert states(toggles(path))["web/exa"] == (True, True)
    assert states(toggles(path))["greeter"] == (False, True)
    assert states(toggles(path))["observability/langfuse"] == (False, False)  # bundled, standalone


def test_enabling_names_the_key_and_takes_it_off_the_disabled_list_keeping_comments(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nplugins:\n  disabled: [langfuse, other]  # no\n")
    plugin = toggles(path).set_enabled("langfuse", True)
    assert (plugin.key, plugin.enabled) == ("observability/langfuse", True)
    saved = yaml.safe_load(path.read_text())["plugins"]
    assert saved == {"disabled": ["other"], "enabled": ["observability/langfuse"]}
    assert path.read_text().startswith("# mine\n")


def test_disabling_takes_the_plugin_off_the_enabled_list_and_names_it_disabled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("plugins:\n  enabled: [greeter, other]\n")
    assert toggles(path).set_enabled("greeter", False).enabled is False
    saved = yaml.safe_load(path.read_text())["plugins"]
    assert saved == {"enabled": ["other"], "disabled": ["greeter"]}


def test_a_plugin_already_so_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = "plugins:\n  enabled: [greeter]\n"
    path.write_text(text)
    assert toggles(path).set_enabled("greeter", True).enabled is True
    assert path.read_text() == text


def test_an_unknown_plugin_and_an_unusable_plugins_setting_are_refused_unwritten(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("plugins: [greeter]\n")
    with pytest.raises(UnknownPlugin):
        toggles(path).set_enabled("nowhere", True)
    with pytest.raises(Unusable):
        toggles(path).set_enabled("greeter", True)
    path.write_text("plugins:\n  enabled: greeter\n")
    with pytest.raises(Unusable):
        toggles(path).listed()
    assert path.read_text() == "plugins:\n  enabled: greeter\n"


def test_a_plugin_the_managed_scope_disables_stays_disabled_and_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")

    def managed(settings: dict[str, Any]) -> dict[str, Any]:  # pins the list, as hermes merges
        settings.setdefault("plugins", {})["disabled"] = ["greeter"]
        return settings

    assert states(toggles(path, managed))["greeter"] == (False, True)
    with pytest.raises(ReadOnly) as refused:
        toggles(path, managed).set_enabled("greeter", True)
    assert refused.value.key_path == ["plugins", "enabled"]
    assert path.read_text() == "model: m\n"


def test_a_name_that_is_one_plugins_key_and_anothers_manifest_name_is_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    flat = ("zeta", "", "", "user", "zeta")  # sorts after a/zeta, whose manifest says zeta
    monkeypatch.setattr(
        "test_worker_plugin_toggles.FOUND", [("zeta", "", "", "bundled", "a/zeta"), flat]
    )
    assert toggles(path).set_enabled("zeta", True).key == "zeta"
    assert yaml.safe_load(path.read_text())["plugins"]["enabled"] == ["zeta"]
