"""Answers to what a run waits for, and text for a running agent.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``sessions`` and ``_run``): ``approval/respond``, ``clarify/respond`` and
``compression/respond`` reach the adapter only while the named run is live
and its session loaded; a request the adapter does not know as pending in
that session is ``unknown_approval`` / ``unknown_clarify`` /
``unknown_compression``. A compression answer is checked before anything
else (exactly one of messages and error; ``messages.checked``). ``run/steer``
queues text on a run whose turn has not started, else gives it to the agent;
a finished run or blank text is not accepted. None of these block.
"""

from __future__ import annotations

from ..protocol import asks as a
from ..protocol import types as t
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .messages import checked
from .state import Run, Session


class AnswerMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]

    def _run(self, run_id: str) -> Run:
        raise NotImplementedError

    def _h_approval_respond(
        self, req: Request, p: a.ApprovalRespondParams
    ) -> a.ApprovalRespondResult:
        run = self._run(p.run_id)
        session = self.sessions.get(run.session_id)
        outcome = None
        if not run.done and session is not None:
            outcome = self.adapter.answer_approval(session, p.approval_id, p.decision, p.reason)
        if outcome is None:
            raise RpcError(
                ErrorType.UNKNOWN_APPROVAL,
                f"approval {p.approval_id!r} is not pending in run {p.run_id!r}",
                approvalId=p.approval_id,
            )
        return a.ApprovalRespondResult(outcome)

    def _h_clarify_respond(self, req: Request, p: a.ClarifyRespondParams) -> a.ClarifyRespondResult:
        run = self._run(p.run_id)
        session = self.sessions.get(run.session_id)
        if (
            run.done
            or session is None
            or not self.adapter.answer_clarify(session, p.clarify_id, p.answer)
        ):
            raise RpcError(
                ErrorType.UNKNOWN_CLARIFY,
                f"question {p.clarify_id!r} is not pending in run {p.run_id!r}",
                clarifyId=p.clarify_id,
            )
        return a.ClarifyRespondResult("answered")

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
        run = self._run(p.run_id)
        session = self.sessions.get(run.session_id)
        outcome = None
        if not run.done and session is not None:
            outcome = self.adapter.answer_compression(session, p.compression_id, messages, p.error)
        if outcome is None:
            raise RpcError(
                ErrorType.UNKNOWN_COMPRESSION,
                f"compression {p.compression_id!r} is not pending in run {p.run_id!r}",
                compressionId=p.compression_id,
            )
        return a.CompressionRespondResult(outcome)

    def _h_run_steer(self, req: Request, p: t.RunSteerParams) -> t.RunSteerResult:
        run = self._run(p.run_id)
        text = p.text.strip()
        if run.done or not text:
            return t.RunSteerResult(False)
        if run.queue_steer(text):  # the turn has not started: it gets the text when it does
            return t.RunSteerResult(True)
        session = self.sessions.get(run.session_id)
        agent = session.agent if session is not None else None
        return t.RunSteerResult(agent is not None and self.adapter.steer(agent, text))
