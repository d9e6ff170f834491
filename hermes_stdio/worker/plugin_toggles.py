"""A profile's hermes plugins, each enabled or not (``plugin/list``,
``plugin/setEnabled``), as ``hermes plugins`` and hermes' TUI show and toggle them.

hermes loads a plugin (its tools, hooks, slash commands) once per process, when
the profile's ``config.yaml`` lets it: named by ``plugins.enabled`` (plugins are
opt-in; a bundled backend loads unless disabled) and not by
``plugins.disabled``. So what a worker has loaded is what the config said when
it started; a change applies in the profile's next worker (``worker/restart``).

Contract: ``PluginToggles(hermes)``, with hermes' parts in ``HermesPlugins``.
- ``listed()`` gives each plugin hermes finds for the profile (on disk and
  among installed packages, as ``hermes plugins list`` does, and any other this
  worker has a record of), by key, as ``PluginInfo``: ``enabled`` as the
  config (the administrator's managed scope over the file's: ``effective``)
  decides it now; ``active``, ``reason`` and what it registered as this
  worker's plugin manager has it.
- ``set_enabled(name, enabled)`` (``name`` a key, else a manifest's name)
  changes the config through ``config_file`` (comments kept, its rules and
  lock): enabling adds the key to ``plugins.enabled`` and takes it (and the
  name) off ``plugins.disabled``; disabling does the opposite. A list that
  already says so is not written. It gives the plugin as it is then.
  ``UnknownPlugin`` for a name no plugin has; ``config_file``'s ``Unusable``
  when ``plugins`` (or one of its lists) is there but is not what hermes reads
  as one, its ``ReadOnly`` when the managed scope would still decide otherwise;
  ``Conflict`` when other writers kept changing the file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..protocol.toolbox import PluginInfo
from .config_changes import change, managed_keeps
from .config_file import ConfigFile, Edit, Unusable

Found = tuple[str, str, str, str, str]  # (name, version, description, source, key)
Lists = tuple[list[str] | None, list[str] | None]  # plugins.enabled, plugins.disabled


class UnknownPlugin(Exception):
    pass


@dataclass(frozen=True)
class HermesPlugins:
    found: Callable[[], list[Found]]  # hermes plugins_cmd's discovery, as its CLI lists them
    loaded: Callable[[], list[dict[str, Any]]]  # this worker's PluginManager.list_plugins()
    config: Callable[[], ConfigFile]
    # The settings hermes acts on: the administrator's managed scope over the file's.
    effective: Callable[[dict[str, Any]], dict[str, Any]] = lambda settings: settings


class PluginToggles:
    def __init__(self, hermes: HermesPlugins) -> None:
        self.hermes = hermes

    def listed(self) -> list[PluginInfo]:
        lists = self._effective(self.hermes.config().read().config)
        return [_info(found, live, lists) for found, live in self._rows()]

    def set_enabled(self, name: str, enabled: bool) -> PluginInfo:
        rows = self._rows()
        # A key names one plugin; a manifest's name may be two plugins' (web/exa, exa).
        row = next((r for r in rows if r[0][4] == name), None)
        row = row or next((r for r in rows if r[0][0] == name), None)
        if row is None:
            raise UnknownPlugin(name)
        found, live = row
        key = found[4]

        def check(after: dict[str, Any]) -> None:
            kept = _enabled(found, live, self._effective(after))
            if kept != enabled:
                raise managed_keeps(key, kept, ["plugins", "enabled" if enabled else "disabled"])

        now = change(self.hermes.config(), lambda c: self._edits(c, found, enabled), check)
        return _info(found, live, self._effective(now))

    def _rows(self) -> list[tuple[Found, dict[str, Any] | None]]:
        live = {str(p.get("key") or p.get("name")): p for p in self.hermes.loaded()}
        rows: dict[str, Found] = {f[4]: f for f in self.hermes.found()}
        for key, p in live.items():  # a project plugin, say: hermes' CLI lists none
            if key not in rows:
                rows[key] = (str(p.get("name") or key), *_texts(p), str(p.get("source")), key)
        return [(rows[key], live.get(key)) for key in sorted(rows)]

    def _effective(self, config: dict[str, Any]) -> Lists:
        return self._lists(self.hermes.effective(copy.deepcopy(config)))

    def _lists(self, config: dict[str, Any]) -> Lists:
        """``plugins.enabled`` and ``plugins.disabled`` (None: absent)."""
        plugins = config.get("plugins")
        if plugins is None:
            return None, None
        if not isinstance(plugins, dict):
            raise Unusable("has a plugins setting that is not a mapping")
        return _names(plugins, "enabled"), _names(plugins, "disabled")

    def _edits(self, config: dict[str, Any], found: Found, enabled: bool) -> list[Edit]:
        on, off = self._lists(config)
        name, key = found[0], found[4]
        add, drop = (on, off) if enabled else (off, on)
        where_add, where_drop = ("enabled", "disabled") if enabled else ("disabled", "enabled")
        edits: list[Edit] = []
        if not {key, name} & set(add or ()):
            edits.append((["plugins", where_add], [*(add or ()), key]))
        if {key, name} & set(drop or ()):
            edits.append((["plugins", where_drop], [n for n in drop or () if n not in (key, name)]))
        return edits


def _names(plugins: dict[str, Any], which: str) -> list[str] | None:
    value = plugins.get(which)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise Unusable(f"has a plugins.{which} setting that is not a list of names")
    return list(value)


def _texts(p: dict[str, Any]) -> tuple[str, str]:
    return str(p.get("version") or ""), str(p.get("description") or "")


def _enabled(found: Found, live: dict[str, Any] | None, lists: Lists) -> bool:
    """hermes' loader's rule (``PluginManager._discover_and_load_inner``)."""
    on, off = lists
    ids = {found[0], found[4]}
    if ids & set(off or ()):
        return False
    if found[3] == "bundled" and live is not None and live.get("kind") == "backend":
        return True
    return bool(ids & set(on or ()))


def _info(found: Found, live: dict[str, Any] | None, lists: Lists) -> PluginInfo:
    name, version, description, source, key = found
    active = bool(live and live.get("enabled"))
    reason = None if active else str((live or {}).get("error") or "") or None
    return PluginInfo(
        key=key,
        name=name,
        version=version or None,
        description=description or None,
        source=source,
        kind=str(live["kind"]) if live and live.get("kind") else None,
        enabled=_enabled(found, live, lists),
        active=active,
        reason=reason if live else "not seen by this worker: it came after the worker started",
        tools=int((live or {}).get("tools") or 0),
        hooks=int((live or {}).get("hooks") or 0),
        commands=int((live or {}).get("commands") or 0),
    )
