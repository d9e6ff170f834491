"""A profile's hermes plugins through the real binary and real hermes-agent: listed with
whether the profile's config enables each and whether the worker has it loaded, and
enabled or disabled in the profile's config.yaml (comments kept), applied by its next
worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

NOTE = "The user's name is Ada."

GREETER = f"""
def register(ctx):
    ctx.register_hook("pre_llm_call", lambda **kw: {{"context": {NOTE!r}}})
"""


def greeter(home: Path) -> None:
    """The user's plugin in the profile's plugins/: it adds a note to each turn."""
    plugin = home / "plugins" / "greeter"
    plugin.mkdir(parents=True)
    manifest = {"name": "greeter", "version": "1.2", "description": "Greets the user by name"}
    (plugin / "plugin.yaml").write_text(yaml.safe_dump(manifest))
    (plugin / "__init__.py").write_text(GREETER)


def listed(host: HostClient, key: str) -> dict[str, Any]:
    plugins = host.request("plugin/list", {}, timeout=60)["plugins"]
    assert [p["key"] for p in plugins] == sorted(p["key"] for p in plugins)
    [plugin] = [p for p in plugins if p["key"] == key]
    return dict(plugin)


def noted(host: HostClient, llm: ScriptedLLM) -> bool:
    """Whether a turn's request to the model carries the plugin's note."""
    llm.enqueue(Reply.text(["hello"]))
    run = host.request("run/start", {"message": "hi"})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    return NOTE in json.dumps(llm.requests[-1])


def test_a_users_plugin_is_enabled_for_the_next_worker_and_disabled_again(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    greeter(home)
    config = home / "config.yaml"
    config.write_text("# the user's own words\n" + config.read_text())
    plugin = listed(host, "greeter")
    assert plugin == {
        "key": "greeter",
        "name": "greeter",
        "version": "1.2",
        "description": "Greets the user by name",
        "source": "user",
        "kind": "standalone",
        "enabled": False,
        "active": False,
        "reason": plugin["reason"],
        "tools": 0,
        "hooks": 0,
        "commands": 0,
    }
    assert "not enabled" in plugin["reason"]
    assert not noted(host, llm)

    done = host.request("plugin/setEnabled", {"name": "greeter", "enabled": True})["plugin"]
    assert (done["enabled"], done["active"]) == (True, False)  # the next worker loads it
    assert yaml.safe_load(config.read_text())["plugins"]["enabled"] == ["greeter"]
    assert config.read_text().startswith("# the user's own words\n")
    host.request("worker/restart", {}, timeout=60)
    plugin = listed(host, "greeter")
    assert (plugin["enabled"], plugin["active"], plugin["reason"]) == (True, True, None)
    assert plugin["hooks"] == 1
    assert noted(host, llm)

    done = host.request("plugin/setEnabled", {"name": "greeter", "enabled": False})["plugin"]
    assert (done["enabled"], done["active"]) == (False, True)
    saved = yaml.safe_load(config.read_text())["plugins"]
    assert (saved["enabled"], saved["disabled"]) == ([], ["greeter"])
    host.request("worker/restart", {}, timeout=60)
    plugin = listed(host, "greeter")
    assert (plugin["enabled"], plugin["active"], plugin["reason"]) == (
        False,
        False,
        plugin["reason"],
    )
    assert "disabled" in plugin["reason"]
    assert not noted(host, llm)


def test_a_plugin_already_so_writes_nothing(host: HostClient, home: Path) -> None:
    greeter(home)
    config = home / "config.yaml"
    before = config.read_text()
    done = host.request("plugin/setEnabled", {"name": "greeter", "enabled": False})["plugin"]
    assert done["enabled"] is False
    saved = yaml.safe_load(config.read_text())["plugins"]
    assert saved["disabled"] == ["greeter"]
    written = config.read_text()
    host.request("plugin/setEnabled", {"name": "greeter", "enabled": False})
    assert config.read_text() == written != before


def test_bundled_plugins_are_listed_and_the_dashboards_are_not_loaded_in_a_worker(
    host: HostClient,
) -> None:
    plugin = listed(host, "dashboard_auth/basic")
    assert (plugin["source"], plugin["kind"]) == ("bundled", "backend")
    assert (plugin["enabled"], plugin["active"]) == (True, False)
    assert "web dashboard" in plugin["reason"]


def test_an_unknown_plugin_is_refused_and_nothing_is_written(host: HostClient, home: Path) -> None:
    config = home / "config.yaml"
    before = config.read_text()
    with pytest.raises(RpcError) as err:
        host.request("plugin/setEnabled", {"name": "nowhere", "enabled": True})
    assert err.value.kind is ErrorType.UNKNOWN_PLUGIN
    assert err.value.data["name"] == "nowhere"
    assert config.read_text() == before


def test_a_profiles_plugins_are_its_own(host: HostClient, home: Path) -> None:
    work = home / "profiles" / "work"
    greeter(work)
    assert "greeter" not in [p["key"] for p in host.request("plugin/list", {})["plugins"]]
    params = {"profile": "work", "name": "greeter", "enabled": True}
    assert host.request("plugin/setEnabled", params)["plugin"]["enabled"] is True
    assert yaml.safe_load((work / "config.yaml").read_text())["plugins"]["enabled"] == ["greeter"]
    assert "plugins" not in yaml.safe_load((home / "config.yaml").read_text())
    with pytest.raises(RpcError) as err:  # not the default profile's to enable
        host.request("plugin/setEnabled", {"name": "greeter", "enabled": True})
    assert err.value.kind is ErrorType.UNKNOWN_PLUGIN
