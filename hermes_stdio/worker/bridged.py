"""The host's answers to what a run of hermes' agent asked for: ``HermesAnswers``, a
mixin of ``adapter.HermesAdapter``.

Contract: ``set_auto_approve`` is ``scope.set_auto_approve`` with hermes'
approval module. Each ``answer_*`` hands the answer to the bridge that asked (approvals,
clarifying questions, sudo passwords, secrets, compression) for that session,
and returns the outcome, or None (False for a question) when that request is
not pending in that session. With no approval bridge installed (hermes
internals changed) no approval is ever pending.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

from . import scope
from .approvals import ApprovalBridge
from .clarify import ClarifyBridge
from .compression import CompressionBridge
from .secrets import SecretBridge
from .state import Session
from .sudo import SudoBridge


class HermesAnswers:
    _approvals: ApprovalBridge | None
    _clarify: ClarifyBridge
    _sudo: SudoBridge
    _secrets: SecretBridge
    _compression: CompressionBridge

    def answer_approval(
        self, session: Session, approval_id: str, decision: str, reason: str | None
    ) -> Literal["approved", "denied"] | None:
        if self._approvals is None:
            return None
        return self._approvals.answer(session.session_id, approval_id, decision, reason)

    def set_auto_approve(self, session: Session, enabled: bool) -> None:
        # A turn inside the scope has imported hermes' approval module; importing it here
        # when none has would only stall the caller.
        scope.set_auto_approve(session, enabled, sys.modules.get("tools.approval"))

    def answer_clarify(self, session: Session, clarify_id: str, text: str) -> bool:
        return self._clarify.answer(session.session_id, clarify_id, text)

    def answer_sudo(
        self, session: Session, sudo_id: str, password: str | None
    ) -> Literal["answered", "declined"] | None:
        return self._sudo.answer(session.session_id, sudo_id, password)

    def answer_secret(
        self, session: Session, secret_id: str, value: str | None
    ) -> Literal["answered", "skipped"] | None:
        return self._secrets.answer(session.session_id, secret_id, value)

    def answer_compression(
        self,
        session: Session,
        compression_id: str,
        messages: list[dict[str, Any]] | None,
        error: str | None,
    ) -> Literal["compressed", "failed"] | None:
        return self._compression.answer(session.session_id, compression_id, messages, error)
