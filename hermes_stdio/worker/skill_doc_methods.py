"""``skill/read``, ``skill/write``, ``skill/create``, ``skill/delete``: a skill's
``SKILL.md`` for a host's skill editor, through ``skill_docs``.

Contract (a mixin of ``WorkerService``, which provides ``adapter``, ``profile``
and ``answer_off_reader``): each request is answered off the reader (hermes
scans the skill directories to find a name). A name no skill has is
``unknown_skill`` (``data.name``); a ``skill/create`` name any skill has is
``skill_exists`` (``data.name``); a stale ``expectedVersion`` is
``config_conflict`` (``data.version``); what hermes refuses is
``invalid_params`` naming the param at fault, with hermes' reason; a change
the file system refuses (a read-only directory) is ``config_read_only``
(``data.name``); a
``SKILL.md`` that is not a regular file is ``profile_unreadable``
(``data.file``); an agent with no skills (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import skill_docs as sd
from ..protocol.record import Record
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .parts import answer_through, config_refusal
from .skill_docs import Doc, SkillDocs, SkillReadOnly, SkillRefused, SkillTaken
from .skill_toggles import UnknownSkill


class SkillDocMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    profile: str

    def _skill_doc(self, req: Request, act: Callable[[SkillDocs], Record]) -> object:
        def refusal(exc: Exception) -> RpcError | None:
            if isinstance(exc, UnknownSkill):
                return RpcError(
                    ErrorType.UNKNOWN_SKILL, f"no skill of the profile is {exc}", name=str(exc)
                )
            if isinstance(exc, SkillTaken):
                return RpcError(ErrorType.SKILL_EXISTS, str(exc), name=exc.name)
            if isinstance(exc, SkillReadOnly):
                return RpcError(ErrorType.CONFIG_READ_ONLY, str(exc), name=exc.name)
            if isinstance(exc, SkillRefused):
                return RpcError(ErrorType.INVALID_PARAMS, str(exc), field=f"params.{exc.field}")
            return config_refusal(self.profile, exc)  # Conflict, Unusable

        return answer_through(
            self.answer_off_reader, req, "skills", self.adapter.skill_docs, act, refusal
        )

    def _h_skill_read(self, req: Request, p: sd.SkillReadParams) -> object:
        def read(docs: SkillDocs) -> Record:
            d = docs.read(p.name)
            return sd.SkillReadResult(d.name, d.path, d.version, d.content)

        return self._skill_doc(req, read)

    def _h_skill_write(self, req: Request, p: sd.SkillWriteParams) -> object:
        return self._skill_doc(
            req, lambda docs: _written(docs.write(p.name, p.content, p.expected_version))
        )

    def _h_skill_create(self, req: Request, p: sd.SkillCreateParams) -> object:
        return self._skill_doc(
            req, lambda docs: _written(docs.create(p.name, p.content, p.category))
        )

    def _h_skill_delete(self, req: Request, p: sd.SkillDeleteParams) -> object:
        return self._skill_doc(req, lambda docs: sd.SkillDeleteResult(p.name, docs.delete(p.name)))


def _written(d: Doc) -> sd.SkillWriteResult:
    return sd.SkillWriteResult(d.name, d.path, d.version)
