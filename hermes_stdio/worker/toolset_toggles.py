"""A profile's toolsets, each enabled or not for its agents (``toolset/list``,
``toolset/setEnabled``), as ``hermes tools`` and hermes' dashboard show and
toggle them.

hermes keeps the toolsets a platform's agents get in ``config.yaml``
(``platform_toolsets.<platform>``, with ``agent.disabled_toolsets`` switching
some off everywhere); a worker's agents run as ``cli``. hermes' own save drops
the file's comments, so its rule for the new settings is run on a copy and the
difference written through ``config_file``.

Contract: ``ToolsetToggles(hermes)``, with hermes' parts in ``HermesToolsets``.
- ``listed()`` gives each toolset hermes lets a ``cli`` user configure (its
  built-in ones, then its plugins'), in hermes' order, as ``ToolsetInfo``:
  enabled as hermes resolves the settings for ``cli`` (the file's, with the
  administrator's managed scope over them: ``effective``).
- ``set_enabled(name, enabled)`` applies hermes' rule for saving the enabled
  set with ``name`` added or taken out (``apply``, which changes the mapping
  it is given) and writes what it changed (``config_changes``); nothing when
  it changed nothing. It gives the toolset as it is then. ``UnknownToolset``
  for a name not listed; ``config_file.ReadOnly`` when the managed scope would
  still decide otherwise; what ``config_changes.change`` raises otherwise.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..protocol.toolbox import ToolsetInfo
from .config_changes import change, edits_between, managed_keeps
from .config_file import ConfigFile, Edit
from .keys import PLATFORM


class UnknownToolset(Exception):
    pass


@dataclass(frozen=True)
class HermesToolsets:
    rows: Callable[[], list[tuple[str, str, str]]]  # (name, label, description), cli's
    tools: Callable[[str], list[str]]  # the tools a toolset gives
    enabled: Callable[[dict[str, Any]], set[str]]  # cli's toolsets under these settings
    apply: Callable[[dict[str, Any], set[str]], None]  # hermes' save rule, in memory
    config: Callable[[], ConfigFile]
    # The settings hermes acts on: the administrator's managed scope over the file's.
    effective: Callable[[dict[str, Any]], dict[str, Any]] = lambda settings: settings


class ToolsetToggles:
    def __init__(self, hermes: HermesToolsets) -> None:
        self.hermes = hermes

    def listed(self) -> list[ToolsetInfo]:
        enabled = self._enabled(self.hermes.config().read().config)
        return [self._info(row, enabled) for row in self.hermes.rows()]

    def _enabled(self, settings: dict[str, Any]) -> set[str]:
        return self.hermes.enabled(self.hermes.effective(copy.deepcopy(settings)))

    def set_enabled(self, name: str, enabled: bool) -> ToolsetInfo:
        row = next((r for r in self.hermes.rows() if r[0] == name), None)
        if row is None:
            raise UnknownToolset(name)

        def edits(settings: dict[str, Any]) -> list[Edit]:
            if (name in self._enabled(settings)) == enabled:
                return []
            chosen = self.hermes.enabled(settings)  # the file's own: what hermes would save
            after = copy.deepcopy(settings)
            self.hermes.apply(after, chosen | {name} if enabled else chosen - {name})
            return edits_between(settings, after)

        def check(after: dict[str, Any]) -> None:
            kept = name in self._enabled(after)
            if kept != enabled:
                raise managed_keeps(name, kept, ["platform_toolsets", PLATFORM])

        now = change(self.hermes.config(), edits, check)
        return self._info(row, self._enabled(now))

    def _info(self, row: tuple[str, str, str], enabled: set[str]) -> ToolsetInfo:
        name, label, description = row
        return ToolsetInfo(
            name=name,
            label=label,
            description=description,
            enabled=name in enabled,
            tools=sorted(self.hermes.tools(name)),
        )
