"""plugin_scope: hermes' bundled web-dashboard plugins are recorded, not loaded,
in a worker; every other plugin loads as hermes decides; the adjustment waits
for hermes' own import of its plugin manager."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_stdio.testing.home import make_home, offline_env
from hermes_stdio.worker import plugin_scope

FAKE_PLUGINS = """
from dataclasses import dataclass

@dataclass
class LoadedPlugin:
    manifest: object
    enabled: bool = False
    error: object = None

@dataclass
class Manifest:
    name: str
    key: str
    source: str

class PluginManager:
    def __init__(self):
        self._plugins = {}
        self.loaded = []

    def _load_plugin(self, manifest):
        self.loaded.append(manifest.key)
        self._plugins[manifest.key] = LoadedPlugin(manifest, enabled=True)
"""


@pytest.fixture
def fake_hermes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    package = tmp_path / "fake_hermes_cli"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugins.py").write_text(FAKE_PLUGINS)
    monkeypatch.syspath_prepend(str(tmp_path))
    name = "fake_hermes_cli.plugins"
    yield name
    for module in [m for m in sys.modules if m.startswith("fake_hermes_cli")]:
        del sys.modules[module]
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, plugin_scope._AfterImport)]


def test_the_plugin_manager_is_adjusted_only_once_hermes_imports_it(fake_hermes: str) -> None:
    finder = plugin_scope._AfterImport(fake_hermes, plugin_scope._scope)
    sys.meta_path.insert(0, finder)
    assert fake_hermes not in sys.modules  # nothing imported ahead of hermes
    plugins = __import__(fake_hermes, fromlist=["PluginManager"])
    assert finder not in sys.meta_path  # once
    manager = plugins.PluginManager()
    for key, source in [
        ("dashboard_auth/basic", "bundled"),
        ("web/ddgs", "bundled"),
        ("dashboard_auth/mine", "user"),
    ]:
        manager._load_plugin(plugins.Manifest(key.split("/")[1], key, source))
    assert manager.loaded == ["web/ddgs", "dashboard_auth/mine"]
    skipped = manager._plugins["dashboard_auth/basic"]
    assert (skipped.enabled, skipped.error) == (False, plugin_scope.NOT_LOADED)
    assert manager._plugins["web/ddgs"].enabled is True


def test_a_plugin_manager_imported_already_is_adjusted_at_once_and_once(fake_hermes: str) -> None:
    plugins = __import__(fake_hermes, fromlist=["PluginManager"])
    plugin_scope._scope(plugins)
    adjusted = plugins.PluginManager._load_plugin
    plugin_scope._scope(plugins)
    assert plugins.PluginManager._load_plugin is adjusted
    manager = plugins.PluginManager()
    manager._load_plugin(plugins.Manifest("basic", "dashboard_auth/basic", "bundled"))
    assert manager.loaded == []


def test_a_plugin_manager_unlike_hermes_is_left_alone(
    fake_hermes: str, capfd: pytest.CaptureFixture[str]
) -> None:
    plugins = __import__(fake_hermes, fromlist=["PluginManager"])
    del plugins.LoadedPlugin
    original = plugins.PluginManager._load_plugin
    plugin_scope._scope(plugins)
    assert plugins.PluginManager._load_plugin is original
    assert "every bundled plugin loads" in capfd.readouterr().err


HERMES_IMPORT = textwrap.dedent(
    """
    import json, sys
    from hermes_stdio.worker import plugin_scope
    plugin_scope.install()
    import run_agent
    from hermes_cli.plugins import get_plugin_manager
    plugins = get_plugin_manager()._plugins
    print(json.dumps({
        "basic": [plugins["dashboard_auth/basic"].enabled, plugins["dashboard_auth/basic"].error],
        "dashboard_modules": [m for m in sys.modules if "dashboard_auth" in m],
        "backends_loaded": sorted(k for k, p in plugins.items() if p.enabled and p.module),
    }))
    """
)


def test_a_real_hermes_import_loads_no_dashboard_plugin_and_every_other_backend(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    done = subprocess.run(
        [sys.executable, "-c", HERMES_IMPORT],
        env=offline_env(home, None),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["basic"] == [False, plugin_scope.NOT_LOADED]
    assert found["dashboard_modules"] == []
    assert "web/ddgs" in found["backends_loaded"]
    assert not [k for k in found["backends_loaded"] if k.startswith("dashboard_auth/")]
