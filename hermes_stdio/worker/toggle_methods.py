"""``skill/list``, ``skill/setEnabled``, ``toolset/list``, ``toolset/setEnabled``,
``plugin/list`` and ``plugin/setEnabled``: the profile's skills, toolsets and
hermes plugins, each enabled or not, through ``skill_toggles``,
``toolset_toggles`` and ``plugin_toggles``.

Contract (a mixin of ``WorkerService``, which provides ``adapter``, ``profile``
and ``answer_off_reader``): each request is answered off the reader (a change
waits for other writers' lock on config.yaml). A name no skill (toolset,
plugin) of the profile has is ``unknown_skill`` (``unknown_toolset``,
``unknown_plugin``), ``data.name``; a change hermes' install or its managed
scope forbids is ``config_read_only`` (``data.keyPath``); a config.yaml hermes
could not use, or whose ``skills`` (``plugins``) setting is not what hermes
reads, is ``profile_unreadable`` (``data.file``); a file other writers kept
changing is ``config_conflict``; an agent without skills, toolsets or plugins
(the synthetic one) is ``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..protocol import toolbox as x
from ..protocol import types as t
from ..protocol.record import Record
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .parts import answer_through, config_refusal
from .plugin_toggles import PluginToggles, UnknownPlugin
from .skill_toggles import SkillToggles, UnknownSkill
from .toolset_toggles import ToolsetToggles, UnknownToolset

P = TypeVar("P")

_UNKNOWN: dict[type[Exception], tuple[ErrorType, str]] = {
    UnknownSkill: (ErrorType.UNKNOWN_SKILL, "skill"),
    UnknownToolset: (ErrorType.UNKNOWN_TOOLSET, "toolset"),
    UnknownPlugin: (ErrorType.UNKNOWN_PLUGIN, "plugin"),
}


class ToggleMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    profile: str

    def _toggle(
        self, req: Request, name: str, part: Callable[[], P | None], act: Callable[[P], Record]
    ) -> object:
        def refusal(exc: Exception) -> RpcError | None:
            for unknown, (kind, what) in _UNKNOWN.items():
                if isinstance(exc, unknown):
                    return RpcError(kind, f"no {what} of the profile is {exc}", name=str(exc))
            return config_refusal(self.profile, exc)

        return answer_through(self.answer_off_reader, req, name, part, act, refusal)

    def _h_skill_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._toggle(
            req, "skills", self.adapter.skill_toggles, lambda s: x.SkillListResult(s.listed())
        )

    def _h_skill_setEnabled(self, req: Request, p: x.SkillSetEnabledParams) -> object:
        def toggle(skills: SkillToggles) -> Record:
            return x.SkillResult(skills.set_enabled(p.name, p.enabled))

        return self._toggle(req, "skills", self.adapter.skill_toggles, toggle)

    def _h_toolset_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._toggle(
            req, "toolsets", self.adapter.toolset_toggles, lambda s: x.ToolsetListResult(s.listed())
        )

    def _h_toolset_setEnabled(self, req: Request, p: x.ToolsetSetEnabledParams) -> object:
        def toggle(toolsets: ToolsetToggles) -> Record:
            return x.ToolsetResult(toolsets.set_enabled(p.name, p.enabled))

        return self._toggle(req, "toolsets", self.adapter.toolset_toggles, toggle)

    def _h_plugin_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._toggle(
            req, "plugins", self.adapter.plugin_toggles, lambda s: x.PluginListResult(s.listed())
        )

    def _h_plugin_setEnabled(self, req: Request, p: x.PluginSetEnabledParams) -> object:
        def toggle(plugins: PluginToggles) -> Record:
            return x.PluginResult(plugins.set_enabled(p.name, p.enabled))

        return self._toggle(req, "plugins", self.adapter.plugin_toggles, toggle)
