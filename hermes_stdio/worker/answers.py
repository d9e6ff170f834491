"""Answers to what a run waits for, and text for a running agent.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``sessions``, ``_run`` and ``_session``): ``approval/respond``,
``clarify/respond``, ``sudo/respond``, ``secret/respond`` and
``compression/respond`` reach the adapter only while the named run is live and
its session loaded; a request the adapter does not know as pending in that
session is ``unknown_approval`` / ``unknown_clarify`` / ``unknown_compression``
/ ``unknown_sudo`` / ``unknown_secret``. A compression answer is checked before
anything else (exactly one of messages and error; ``messages.checked``).
``session/autoApprove`` answers approvals ahead, and ``session/reviewEdits``
holds file edits for review, for the session (created when absent) and its run
in progress. ``run/steer`` queues text on a run whose turn
has not started, else gives it to the run's agent (``Run.steer_target``); a
finished run or blank text is not accepted. None of these block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

from ..protocol import asks as a
from ..protocol import types as t
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .messages import checked
from .state import Run, Session

_T = TypeVar("_T")


class AnswerMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]

    def _run(self, run_id: str) -> Run:
        raise NotImplementedError

    def _session(self, session_id: str) -> Session:
        raise NotImplementedError

    def _h_session_autoApprove(
        self, req: Request, p: a.SessionAutoApproveParams
    ) -> a.SessionAutoApproveResult:
        # The session is created, or resumed, as by session/switchModel: its next run has it.
        self.adapter.set_auto_approve(self._session(p.session_id), p.enabled)
        return a.SessionAutoApproveResult(p.session_id, p.enabled)

    def _h_session_reviewEdits(
        self, req: Request, p: a.SessionReviewEditsParams
    ) -> a.SessionReviewEditsResult:
        # read at each edit (edit_review), so a run in progress has it from its next one
        self._session(p.session_id).review_edits = p.enabled
        return a.SessionReviewEditsResult(p.session_id, p.enabled)

    def _answer(
        self, run_id: str, gone: ErrorType, ident: str, give: Callable[[Session], _T | None]
    ) -> _T:
        """``give`` the answer to the live run's session; ``gone`` when nothing took it."""
        run = self._run(run_id)
        session = self.sessions.get(run.session_id)
        outcome = give(session) if not run.done and session is not None else None
        if outcome is None:
            what = gone.type.removeprefix("unknown_")
            raise RpcError(
                gone, f"{what} {ident!r} is not pending in run {run_id!r}", **{f"{what}Id": ident}
            )
        return outcome

    def _h_approval_respond(
        self, req: Request, p: a.ApprovalRespondParams
    ) -> a.ApprovalRespondResult:
        def give(session: Session) -> Literal["approved", "denied"] | None:
            return self.adapter.answer_approval(session, p.approval_id, p.decision, p.reason)

        outcome: Literal["approved", "denied"] = self._answer(
            p.run_id, ErrorType.UNKNOWN_APPROVAL, p.approval_id, give
        )
        return a.ApprovalRespondResult(outcome)

    def _h_clarify_respond(self, req: Request, p: a.ClarifyRespondParams) -> a.ClarifyRespondResult:
        def give(session: Session) -> bool | None:
            return self.adapter.answer_clarify(session, p.clarify_id, p.answer) or None

        self._answer(p.run_id, ErrorType.UNKNOWN_CLARIFY, p.clarify_id, give)
        return a.ClarifyRespondResult("answered")

    def _h_sudo_respond(self, req: Request, p: a.SudoRespondParams) -> a.SudoRespondResult:
        def give(session: Session) -> Literal["answered", "declined"] | None:
            return self.adapter.answer_sudo(session, p.sudo_id, p.password)

        outcome: Literal["answered", "declined"] = self._answer(
            p.run_id, ErrorType.UNKNOWN_SUDO, p.sudo_id, give
        )
        return a.SudoRespondResult(outcome)

    def _h_secret_respond(self, req: Request, p: a.SecretRespondParams) -> a.SecretRespondResult:
        def give(session: Session) -> Literal["answered", "skipped"] | None:
            return self.adapter.answer_secret(session, p.secret_id, p.value)

        outcome: Literal["answered", "skipped"] = self._answer(
            p.run_id, ErrorType.UNKNOWN_SECRET, p.secret_id, give
        )
        return a.SecretRespondResult(outcome)

    def _h_compression_respond(
        self, req: Request, p: a.CompressionRespondParams
    ) -> a.CompressionRespondResult:
        if (p.messages is None) == (p.error is None):
            raise RpcError(
                ErrorType.INVALID_PARAMS, "send either messages or error", field="params.messages"
            )
        try:
            messages = checked(p.messages) if p.messages is not None else None
        except ValueError as exc:
            raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params.messages") from exc

        def give(session: Session) -> Literal["compressed", "failed"] | None:
            return self.adapter.answer_compression(session, p.compression_id, messages, p.error)

        outcome: Literal["compressed", "failed"] = self._answer(
            p.run_id, ErrorType.UNKNOWN_COMPRESSION, p.compression_id, give
        )
        return a.CompressionRespondResult(outcome)

    def _h_run_steer(self, req: Request, p: t.RunSteerParams) -> t.RunSteerResult:
        run = self._run(p.run_id)
        text = p.text.strip()
        if run.done or not text:
            return t.RunSteerResult(False)
        if run.queue_steer(text):  # the turn has not started: it gets the text when it does
            return t.RunSteerResult(True)
        agent = run.steer_target()
        return t.RunSteerResult(agent is not None and self.adapter.steer(agent, text))
