"""A profile's skills, each enabled or not for its agents (``skill/list``,
``skill/setEnabled``), as ``hermes skills`` shows and toggles them.

hermes keeps the names it leaves out of its agents in ``config.yaml``:
``skills.disabled`` everywhere, ``skills.platform_disabled.<platform>`` on one
platform besides; a worker's agents run as ``cli``. ``command/list`` shows only
the enabled ones, so without this a host could not show a disabled skill, nor
turn it back on.

Contract: ``SkillToggles(hermes)``, with hermes' parts in ``HermesSkills``.
- ``listed()`` gives each skill hermes finds for the profile (enabled or not),
  sorted by category then name, as ``SkillInfo``; ``enabled`` is false when
  either list names it, in the file or in the administrator's managed scope
  (``effective``).
- ``set_enabled(name, enabled)`` changes the config through ``config_file``
  (comments kept, its rules and lock): disabling adds the name to
  ``skills.disabled``; enabling removes it from that list and from
  ``skills.platform_disabled.cli``. A list that already says so is not
  written. It gives the skill as it is then. ``UnknownSkill`` for a name no
  skill has; ``config_file``'s ``Unusable`` when ``skills`` (or one of its lists)
  is there but is not what hermes reads as one, and its ``ReadOnly`` when the
  install or the managed scope forbids the change, or the managed scope would
  still decide otherwise; ``Conflict`` when other
  writers kept changing the file (``config_changes.change``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..protocol.toolbox import SkillInfo
from .config_changes import change, managed_keeps
from .config_file import ConfigFile, Edit, Unusable
from .keys import PLATFORM


class UnknownSkill(Exception):
    pass


@dataclass(frozen=True)
class HermesSkills:
    found: Callable[[], list[dict[str, Any]]]  # skills_tool._find_all_skills(skip_disabled=True)
    normalize: Callable[[Any], Iterable[str]]  # skill_utils._normalize_string_set
    config: Callable[[], ConfigFile]
    # The settings hermes acts on: the administrator's managed scope over the file's.
    effective: Callable[[dict[str, Any]], dict[str, Any]] = lambda settings: settings


class SkillToggles:
    def __init__(self, hermes: HermesSkills) -> None:
        self.hermes = hermes

    def listed(self) -> list[SkillInfo]:
        disabled = self._disabled(self.hermes.config().read().config)
        found = sorted(self.hermes.found(), key=lambda s: (s.get("category") or "", s["name"]))
        return [_info(s, disabled) for s in found]

    def set_enabled(self, name: str, enabled: bool) -> SkillInfo:
        skill = next((s for s in self.hermes.found() if s.get("name") == name), None)
        if skill is None:
            raise UnknownSkill(name)

        def check(after: dict[str, Any]) -> None:
            kept = name not in self._disabled(after)
            if kept != enabled:
                raise managed_keeps(name, kept, ["skills", "disabled"])

        now = change(self.hermes.config(), lambda c: self._edits(c, name, enabled), check)
        return _info(skill, self._disabled(now))

    def _lists(self, config: dict[str, Any]) -> tuple[list[str] | None, list[str] | None]:
        """``skills.disabled`` and ``skills.platform_disabled.cli`` as lists (None:
        absent)."""
        skills = config.get("skills")
        if skills is None:
            return None, None
        if not isinstance(skills, dict):
            raise Unusable("has a skills setting that is not a mapping")
        per_platform = skills.get("platform_disabled")
        if per_platform is not None and not isinstance(per_platform, dict):
            raise Unusable("has a skills.platform_disabled setting that is not a mapping")
        here = (per_platform or {}).get(PLATFORM)
        return self._names(skills.get("disabled")), self._names(here)

    def _names(self, value: Any) -> list[str] | None:
        return None if value is None else sorted(self.hermes.normalize(value))

    def _disabled(self, config: dict[str, Any]) -> set[str]:
        everywhere, here = self._lists(self.hermes.effective(copy.deepcopy(config)))
        return set(everywhere or ()) | set(here or ())

    def _edits(self, config: dict[str, Any], name: str, enabled: bool) -> list[Edit]:
        everywhere, here = self._lists(config)
        if not enabled:
            if name in (everywhere or ()):
                return []
            return [(["skills", "disabled"], [*(everywhere or ()), name])]
        edits: list[Edit] = []
        if everywhere is not None and name in everywhere:
            edits.append((["skills", "disabled"], [n for n in everywhere if n != name]))
        if here is not None and name in here:
            path = ["skills", "platform_disabled", PLATFORM]
            edits.append((path, [n for n in here if n != name]))
        return edits


def _info(skill: dict[str, Any], disabled: set[str]) -> SkillInfo:
    return SkillInfo(
        name=str(skill["name"]),
        description=str(skill.get("description") or ""),
        category=str(skill["category"]) if skill.get("category") else None,
        enabled=skill["name"] not in disabled,
    )
