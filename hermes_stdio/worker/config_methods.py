"""``config/read`` and ``config/write``: the profile's settings, through
``config_file`` under hermes' rules; ``env/list``, ``env/set`` and ``env/remove``:
its environment variables, through ``env_vars``.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): each request is answered off the reader (a write waits
for other writers' file lock). A file hermes could not use is
``profile_unreadable`` (``data.file``), as when a worker starts; a version that
is not the file's is ``config_conflict`` (``data.version``, the file's now); a
change hermes' install or its managed scope forbids is ``config_read_only``
(``data.keyPath``, or ``data.name`` for a variable); a ``.env`` or
``config.yaml`` that is not a regular file, for ``env/*``, is
``profile_unreadable`` too; a wrong edit, name or
value is ``invalid_params`` naming it; an agent without a profile's settings
(the synthetic one) is ``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import config as cf
from ..protocol import env as ev
from ..protocol import types as t
from ..protocol.record import Record
from ..wire import ErrorType, Request, RpcError
from .config_file import BadEdit, ConfigFile, ReadOnly, jsonable
from .contract import AgentAdapter
from .env_vars import EnvVars, Refused
from .parts import answer_through, config_refusal, unreadable

MAX_EDITS = 64


class ConfigMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    profile: str

    def _config(self, req: Request, act: Callable[[ConfigFile], Record]) -> object:
        def refusal(exc: Exception) -> RpcError | None:
            if isinstance(exc, BadEdit):
                return RpcError(
                    ErrorType.INVALID_PARAMS, str(exc), field=f"params.edits[{exc.index}]"
                )
            return config_refusal(self.profile, exc)

        return answer_through(
            self.answer_off_reader, req, "profile settings", self.adapter.config_file, act, refusal
        )

    def _h_config_read(self, req: Request, p: t.WorkerTarget) -> object:
        def read(config: ConfigFile) -> Record:
            snapshot, rules = config.read(), config.rules
            return cf.ConfigReadResult(
                path=str(config.path),
                version=snapshot.version,
                config=jsonable(snapshot.config),
                defaults=jsonable(rules.defaults()),
                managed=jsonable(rules.managed()),
                read_only=rules.read_only(),
            )

        return self._config(req, read)

    def _h_config_write(self, req: Request, p: cf.ConfigWriteParams) -> object:
        if not 1 <= len(p.edits) <= MAX_EDITS:
            raise RpcError(
                ErrorType.INVALID_PARAMS, f"edits: 1 to {MAX_EDITS}", field="params.edits"
            )
        edits = [(e.key_path, e.value) for e in p.edits]

        def write(config: ConfigFile) -> Record:
            snapshot, warnings = config.write(edits, p.expected_version)
            return cf.ConfigWriteResult(snapshot.version or "", jsonable(snapshot.config), warnings)

        return self._config(req, write)

    def _env(self, req: Request, name: str, act: Callable[[EnvVars], Record]) -> object:
        def refusal(exc: Exception) -> RpcError | None:
            if isinstance(exc, ReadOnly):
                return RpcError(ErrorType.CONFIG_READ_ONLY, str(exc), name=name)
            if isinstance(exc, Refused):
                return RpcError(ErrorType.INVALID_PARAMS, str(exc), field=exc.field)
            return unreadable(self.profile, exc)

        return answer_through(
            self.answer_off_reader, req, "profile settings", self.adapter.env_vars, act, refusal
        )

    def _h_env_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._env(
            req,
            "",
            lambda env: ev.EnvListResult(env.listed(), env.hermes.read_only()),
        )

    def _h_env_set(self, req: Request, p: ev.EnvSetParams) -> object:
        return self._env(req, p.name, lambda env: ev.EnvVarResult(env.set(p.name, p.value)))

    def _h_env_remove(self, req: Request, p: ev.EnvRemoveParams) -> object:
        return self._env(req, p.name, lambda env: ev.EnvRemoveResult(*env.remove(p.name)))
