"""A profile's skills, toolsets and plugins, each on or off for its agents: the
``skill_toggles``, ``toolset_toggles`` and ``plugin_toggles`` part of
``adapter.HermesAdapter``.

Contract: ``HermesToggles`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent, and ``config_file``) and implements
``contract.AgentAdapter``'s ``skill_toggles`` and ``toolset_toggles`` by passing
hermes' functions to those modules: its skill scan and its reading of the
disabled lists; the toolsets its ``hermes tools`` lets a ``cli`` user configure
(labelled as its dashboard labels them), their tools, its resolution of the
enabled set and its rule for saving one (``_save_platform_tools``), run on a
copy with its own write held back, so that only ``config_file`` writes; and its
overlay of the administrator's managed scope, which hermes' agents see; hermes'
plugin discovery (as ``hermes plugins list`` finds them) and its plugin manager.
It also implements ``skill_docs`` (one per adapter) with the functions behind
hermes' ``skill_manage`` tool and its skills prompt cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from . import config_file, plugin_toggles, skill_toggles, toolset_toggles
from . import skill_docs as docs
from .keys import PLATFORM

# hermes' save rule ends by writing the file; its write is swapped out meanwhile.
_HELD = threading.Lock()
_MADE = threading.Lock()  # one SkillDocs (and so one lock) per adapter


class HermesToggles:
    _modules: Callable[[], Any]
    config_file: Callable[[], config_file.ConfigFile]

    _skill_docs: docs.SkillDocs | None = None

    def skill_docs(self) -> docs.SkillDocs:
        self._modules()
        with _MADE:
            if self._skill_docs is None:
                self._skill_docs = self._new_skill_docs()
            return self._skill_docs

    def _new_skill_docs(self) -> docs.SkillDocs:
        from agent.prompt_builder import clear_skills_system_prompt_cache
        from tools import skill_manager_tool as manage

        def find(name: str) -> Any:
            found = manage._find_skill(name)
            return found["path"] if found else None

        return docs.SkillDocs(
            docs.HermesSkillDocs(
                find=find,
                root=manage._skills_dir,
                check_name=manage._validate_name,
                check_category=manage._validate_category,
                create=manage._create_skill,
                edit=manage._edit_skill,
                delete=lambda name: manage._delete_skill(name, absorbed_into=""),
                changed=lambda: clear_skills_system_prompt_cache(clear_snapshot=True),
            )
        )

    def skill_toggles(self) -> skill_toggles.SkillToggles:
        self._modules()
        from agent import skill_utils
        from hermes_cli import managed_scope
        from tools import skills_tool

        return skill_toggles.SkillToggles(
            skill_toggles.HermesSkills(
                found=lambda: skills_tool._find_all_skills(skip_disabled=True),
                normalize=skill_utils._normalize_string_set,
                config=self.config_file,
                effective=managed_scope.apply_managed_overlay,
            )
        )

    def toolset_toggles(self) -> toolset_toggles.ToolsetToggles:
        self._modules()
        import toolsets
        from hermes_cli import managed_scope
        from hermes_cli import tools_config as tc

        def rows() -> list[tuple[str, str, str]]:
            return [
                (name, tc.gui_toolset_label(label), description)
                for name, label, description in tc._get_effective_configurable_toolsets()
                if tc._toolset_allowed_for_platform(name, PLATFORM)
            ]

        def enabled(settings: dict[str, Any]) -> set[str]:
            return set(
                tc._get_platform_tools(settings, PLATFORM, include_default_mcp_servers=False)
            )

        def apply(settings: dict[str, Any], chosen: set[str]) -> None:
            with _HELD:
                write, tc.save_config = tc.save_config, lambda *_a, **_k: None
                try:
                    tc._save_platform_tools(settings, PLATFORM, chosen)
                finally:
                    tc.save_config = write

        return toolset_toggles.ToolsetToggles(
            toolset_toggles.HermesToolsets(
                rows=rows,
                tools=lambda name: sorted(set(toolsets.resolve_toolset(name))),
                enabled=enabled,
                apply=apply,
                config=self.config_file,
                effective=managed_scope.apply_managed_overlay,
            )
        )

    def plugin_toggles(self) -> plugin_toggles.PluginToggles:
        self._modules()
        from hermes_cli import managed_scope
        from hermes_cli import plugins as hermes_plugins
        from hermes_cli.plugins_cmd import _discover_all_plugins

        def found() -> list[plugin_toggles.Found]:
            return [
                (str(name), str(version or ""), str(about or ""), str(source), str(key))
                for name, version, about, source, _path, key in _discover_all_plugins()
            ]

        def loaded() -> list[dict[str, Any]]:
            hermes_plugins.discover_plugins()  # once per process: done by now, as a rule
            return list(hermes_plugins.get_plugin_manager().list_plugins())

        return plugin_toggles.PluginToggles(
            plugin_toggles.HermesPlugins(
                found=found,
                loaded=loaded,
                config=self.config_file,
                effective=managed_scope.apply_managed_overlay,
            )
        )
