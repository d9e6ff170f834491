"""A profile's settings and memory: the ``config_file``, ``env_vars`` and
``memories`` part of ``adapter.HermesAdapter``, through hermes' own rules.

Contract: ``HermesSettings`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent) and implements ``contract.AgentAdapter``'s
``config_file``, ``env_vars`` and ``memories`` by passing hermes' functions to
those modules: its config path, defaults, managed scope, install lock, key
checks and config caches (the skill scan's too); its ``.env`` loader and its
credential lifecycle (``save_provider_env_credential``,
``remove_provider_env_credential``), which replace a config.yaml copy of a
rotated key and hermes' credential pool entries too; its ``MemoryStore`` with
the profile's limits, and its injection scan.
``watch_env()`` (once, right after hermes' import loaded ``.env``) and
``refresh_env()`` (before each agent build, ``env/*`` request and command) apply
the profile's ``.env`` again when it changed (``env_refresh``), through hermes'
parser and deny list; ``watch_shells()`` (once) gives what changed to the
commands of hermes' local shells started before (``shell_env``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..transport.log import log
from . import config_file, env_refresh, env_vars, memories, shell_env


def _refuses(check: Callable[[str], None]) -> Callable[[str], bool]:
    def refused(name: str) -> bool:
        try:
            check(name)
        except ValueError:
            return True
        return False

    return refused


def _name_check(config: Any) -> Callable[[str], None]:
    """hermes' checks of a variable's name: a ValueError for one it never writes."""

    def check(name: str) -> None:
        if not config._ENV_VAR_NAME_RE.match(name):
            raise ValueError(f"{name!r} is not an environment variable's name")
        config._reject_denylisted_env_var(name)

    return check


class HermesSettings:
    _modules: Callable[[], Any]
    _env_refresh: env_refresh.EnvRefresh | None = None

    def watch_env(self) -> None:
        from hermes_cli import config, managed_scope

        def load() -> Any:
            config.invalidate_env_cache()  # keyed on mtime and size: stale within a tick
            return config.load_env()

        try:
            self._env_refresh = env_refresh.EnvRefresh(
                env_refresh.HermesDotenv(
                    path=config.get_env_path(),
                    load=load,
                    managed=managed_scope.load_managed_env,
                    refused=_refuses(_name_check(config)),
                )
            )
        except Exception as exc:  # the worker goes on with the environment it started with
            log(f"worker: reading the profile's .env failed ({type(exc).__name__}): not followed")

    def watch_shells(self) -> None:
        try:
            from tools.environments import local
        except ImportError:
            local = None

        def changes(generation: int) -> tuple[int, list[str]]:
            self.refresh_env()
            refresh = self._env_refresh
            return (0, []) if refresh is None else refresh.changed_since(generation)

        shell = getattr(local, "LocalEnvironment", None)
        if shell is None or not shell_env.install(shell, changes):
            log("worker: hermes' local shell changed: a changed .env reaches new shells only")

    def refresh_env(self) -> None:
        refresh = self._env_refresh
        if refresh is None:
            return
        try:
            changed = refresh.refresh()
        except Exception as exc:  # a build or request goes on with the environment it has
            log(f"worker: applying the profile's changed .env failed: {type(exc).__name__}")
            return
        if changed:
            log(f"worker: the profile's .env changed: {', '.join(changed)} applied")

    def config_file(self) -> config_file.ConfigFile:
        self._modules()
        from hermes_cli import config, managed_scope

        def forget(path: str) -> None:
            config._LOAD_CONFIG_CACHE.pop(path, None)
            config._RAW_CONFIG_CACHE.pop(path, None)
            # The skill scan's own copy (its disabled lists), keyed the same way.
            skills = sys.modules.get("agent.skill_utils")
            cached = getattr(skills, "_RAW_CONFIG_CACHE", None)
            if isinstance(cached, dict):
                for key in [k for k in cached if isinstance(k, tuple) and k[:1] == (path,)]:
                    cached.pop(key, None)

        rules = config_file.Rules(
            read_only=config.get_managed_system,
            defaults=lambda: config.DEFAULT_CONFIG,
            managed=managed_scope.load_managed_config,
            secret_key=config._is_env_config_key,
            unknown=config_file.unknown_key(config._validate_config_key),
            guard=lambda: config._CONFIG_LOCK,
            written=lambda: forget(str(config.get_config_path())),
        )
        return config_file.ConfigFile(config.get_config_path(), rules)

    def env_vars(self) -> env_vars.EnvVars:
        self._modules()
        self.refresh_env()
        from hermes_cli import config, credential_lifecycle, managed_scope

        def entries(name: str, value: str) -> int:
            line = f"{name}={config._quote_env_value(value)}\n"
            return len(config._sanitize_env_lines([line]))

        def save(name: str, value: str) -> None:
            credential_lifecycle.save_provider_env_credential(name, value)

        def remove(name: str) -> bool:
            return bool(credential_lifecycle.remove_provider_env_credential(name).get("found"))

        return env_vars.EnvVars(
            env_vars.HermesEnv(
                home=config.get_hermes_home(),
                known=config.OPTIONAL_ENV_VARS,
                dotenv=config.load_env,
                managed=managed_scope.load_managed_env,
                read_only=config.get_managed_system,
                check=_name_check(config),
                entries=entries,
                save=save,
                remove=remove,
            )
        )

    def memories(self) -> memories.Memories:
        self._modules()
        from hermes_cli import config
        from tools import memory_tool
        from tools.threat_patterns import first_threat_message

        def settings() -> dict[str, Any]:
            found = config.load_config().get("memory")
            return found if isinstance(found, dict) else {}

        def store() -> Any:
            mem = settings()
            return memory_tool.MemoryStore(
                memory_char_limit=int(mem.get("memory_char_limit", 2200)),
                user_char_limit=int(mem.get("user_char_limit", 1375)),
            )

        def enabled() -> dict[str, bool]:
            mem = settings()
            return {
                "memory": bool(mem.get("memory_enabled", False)),
                "user": bool(mem.get("user_profile_enabled", False)),
            }

        return memories.Memories(
            memories.HermesMemory(
                home=config.get_hermes_home(),
                store=store,
                read=memory_tool.MemoryStore._read_file,
                enabled=enabled,
                blocked=lambda text: first_threat_message(text, scope="strict"),
                delimiter=memory_tool.ENTRY_DELIMITER,
            )
        )
