"""Requests about a run the host names by ``runId``, routed to the worker it ran in.

Contract (a mixin of ``Supervisor``, beside ``routing.RoutedMethods``, which
provides ``_running``, ``_forward`` and ``_reply``): a ``runId`` never seen is
``unknown_run``. ``run/interrupt`` and ``run/steer`` of a run that has ended
(or whose worker is gone) are answered here, false; ``run/result`` of one is
its final record, kept when its worker died, else ``unknown_run`` (expired
with its worker). An answer to what a run waits for (``approval/respond``,
``clarify/respond``, ``sudo/respond``, ``secret/respond``,
``compression/respond``) goes to the run's worker while the run lasts; after,
it is the named ``unknown_*`` error, as nothing waits any more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol import asks as a
from ..protocol import encode
from ..protocol import types as t
from ..wire import ErrorType, Request, RpcError
from .routes import Routes, SlotKey
from .slot import WorkerSlot


class RunRouting:
    routes: Routes
    _running: Callable[[SlotKey], WorkerSlot | None]
    _forward: Callable[..., None]
    _reply: Callable[..., bool]

    def _run_slot(
        self, run_id: str, *, finished_here: bool = False
    ) -> tuple[WorkerSlot | None, dict[str, Any] | None]:
        """The worker to ask about a run, or None to answer here. ``finished_here``:
        a finished run needs no worker (nothing of it can still change); the one it
        ran in may have been replaced since, and a new process never saw it."""
        route = self.routes.run(run_id)
        if route is None:
            raise RpcError(ErrorType.UNKNOWN_RUN, f"unknown run {run_id!r}", runId=run_id)
        if route.final is not None:
            return None, route.final
        if finished_here and route.done:
            return None, None
        return self._running(route.slot), None

    def _h_run_interrupt(self, req: Request, p: t.RunTarget) -> None:
        slot, _final = self._run_slot(p.run_id, finished_here=True)
        if slot is None:
            self._reply(req, encode(t.RunInterruptResult(False)))
            return
        self._forward(req, slot)

    def _h_run_steer(self, req: Request, p: t.RunSteerParams) -> None:
        slot, _final = self._run_slot(p.run_id, finished_here=True)
        if slot is None:
            self._reply(req, encode(t.RunSteerResult(False)))
            return
        self._forward(req, slot)

    def _h_run_result(self, req: Request, p: t.RunTarget) -> None:
        slot, final = self._run_slot(p.run_id)
        if slot is None:
            if final is None:
                raise RpcError(
                    ErrorType.UNKNOWN_RUN,
                    f"run {p.run_id!r} expired with its worker",
                    runId=p.run_id,
                )
            self._reply(req, final)
            return
        self._forward(req, slot)

    def _h_approval_respond(self, req: Request, p: a.ApprovalRespondParams) -> None:
        self._to_live_run(req, p.run_id, ErrorType.UNKNOWN_APPROVAL, approvalId=p.approval_id)

    def _h_clarify_respond(self, req: Request, p: a.ClarifyRespondParams) -> None:
        self._to_live_run(req, p.run_id, ErrorType.UNKNOWN_CLARIFY, clarifyId=p.clarify_id)

    def _h_sudo_respond(self, req: Request, p: a.SudoRespondParams) -> None:
        self._to_live_run(req, p.run_id, ErrorType.UNKNOWN_SUDO, sudoId=p.sudo_id)

    def _h_secret_respond(self, req: Request, p: a.SecretRespondParams) -> None:
        self._to_live_run(req, p.run_id, ErrorType.UNKNOWN_SECRET, secretId=p.secret_id)

    def _h_compression_respond(self, req: Request, p: a.CompressionRespondParams) -> None:
        self._to_live_run(
            req, p.run_id, ErrorType.UNKNOWN_COMPRESSION, compressionId=p.compression_id
        )

    def _to_live_run(self, req: Request, run_id: str, gone: ErrorType, **data: Any) -> None:
        """Forward an answer to what a run waits for; ``gone`` once the run has ended."""
        slot, _final = self._run_slot(run_id, finished_here=True)
        if slot is None:  # the run ended (or its worker did): nothing waits any more
            what = next(iter(data.values()))
            raise RpcError(gone, f"{what!r} is not pending: run {run_id!r} has ended", **data)
        self._forward(req, slot)
