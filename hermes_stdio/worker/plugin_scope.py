"""hermes plugins a worker never uses are not loaded.

hermes loads every bundled plugin of kind ``backend`` in each process that
imports its tools, whatever the process serves. Those under ``dashboard_auth/``
authenticate users of hermes' web dashboard, which no worker runs; and
importing them costs each worker about 45 ms (one computes an scrypt hash at
import), a quarter of a forked worker's start. hermes itself defers its
platform plugins the same way, for the same reason.

Contract: ``install()``, called before hermes-agent is imported, arranges that
once ``hermes_cli.plugins`` is imported (by hermes, at its own time, after the
profile's ``.env`` is loaded: nothing is imported earlier than hermes would)
its ``PluginManager`` does not load a bundled plugin whose key starts with one
of ``SKIPPED``; it records it as not enabled, with ``NOT_LOADED`` as the
reason, as hermes records a plugin its config disables, so hermes' own
listing stays whole. Any other plugin (and one a user installed in the
profile's home under the same name) loads as hermes decides. Where hermes'
plugin manager is not what this expects, nothing changes. Once per process;
when the module is imported already, it is adjusted at once.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from ..transport.log import log

MODULE = "hermes_cli.plugins"
SKIPPED = ("dashboard_auth/",)
NOT_LOADED = "serves hermes' web dashboard only: not loaded in hermes-stdio workers"
_MARK = "_hermes_stdio_scoped"


def _scope(plugins: ModuleType) -> None:
    manager: Any = getattr(plugins, "PluginManager", None)
    loaded_plugin: Any = getattr(plugins, "LoadedPlugin", None)
    load = getattr(manager, "_load_plugin", None)
    if manager is None or loaded_plugin is None or not callable(load):
        log("worker: hermes' plugin manager changed: every bundled plugin loads")
        return
    if getattr(load, _MARK, False):
        return

    def load_plugin(self: Any, manifest: Any) -> Any:
        key = str(getattr(manifest, "key", None) or getattr(manifest, "name", ""))
        if getattr(manifest, "source", None) != "bundled" or not key.startswith(SKIPPED):
            return load(self, manifest)
        record = loaded_plugin(manifest=manifest, enabled=False)
        record.error = NOT_LOADED
        self._plugins[key] = record
        return None

    setattr(load_plugin, _MARK, True)
    manager._load_plugin = load_plugin


class _Loader(importlib.abc.Loader):
    """The module's own loader, then ``then(module)`` once its body has run."""

    def __init__(self, loader: Any, then: Callable[[ModuleType], None]) -> None:
        self._loader, self._then = loader, then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._loader.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._then(module)

    def __getattr__(self, name: str) -> Any:  # get_source, is_package ...
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: runs ``then`` on one module right after its import."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; and the lookup below must not find us again
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader, self.then)
        return spec


def install() -> None:
    if any(isinstance(f, _AfterImport) for f in sys.meta_path):
        return
    imported = sys.modules.get(MODULE)
    if imported is not None:
        _scope(imported)
    else:
        sys.meta_path.insert(0, _AfterImport(MODULE, _scope))
