"""Host methods a worker answers, and what workers send back.

Contract (a mixin of ``Supervisor``, which provides ``home``, ``pool``,
``routes``, ``host`` and ``_reply``):
- Routed requests go to the worker found by ``sessionId`` or
  ``profile``/``workerKey``, starting it on a handler thread when needed (never
  on the host's reader). A session stays with the worker that holds it.
- Those naming a ``runId`` are ``run_routing``'s; ``cron/tick`` is
  ``cron_schedule``'s.
- What workers send back is relayed by ``relay``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import asks as a
from ..protocol import cron as cr
from ..protocol import encode
from ..protocol import providers as pv
from ..protocol import stored as st
from ..protocol import types as t
from ..protocol import usage as u
from ..transport import Peer
from ..transport.log import log
from ..wire import ErrorType, Request, RequestId, Response, RpcError
from .forwards import Forward, Forwards
from .profiles import check_name, profile_home
from .routes import Routes, SlotKey
from .slot import WorkerSlot
from .workers import WorkerPool


def spawn_thread(fn: Callable[[], None]) -> None:
    """Run a slow handler (worker start, shutdown) on its own thread, off the reader."""
    threading.Thread(target=fn, name="handler", daemon=True).start()


REQUEST_TIMEOUT_S = 60.0  # a worker answers every request at once; this bounds a wedged one


def _belongs_elsewhere(session_id: str, key: SlotKey) -> RpcError:
    return RpcError(
        ErrorType.INVALID_PARAMS,
        f"session {session_id!r} belongs to profile {key[0]!r} (workerKey {key[1]!r})",
        field="params.profile",
    )


class RoutedMethods:
    home: Path
    pool: WorkerPool
    routes: Routes
    host: Peer | None
    _lock: threading.Lock
    _inflight: dict[RequestId, Request]
    closing: dict[str, str]  # profiles being deleted or renamed now: no worker may start
    forwards: Forwards  # host requests sent on to workers, not answered yet

    def _reply(self, req: Request, result: Any = None, error: Any = None) -> bool:
        raise NotImplementedError

    # --- routed methods ----------------------------------------------------

    def _key(self, profile: str | None, worker_key: str | None) -> SlotKey:
        """Validate a profile/workerKey target; unknown or escaping profiles fail here,
        and so does one profile/delete or profile/rename is working on."""
        name = check_name(profile)
        self._refuse_closing(name)
        profile_home(self.home, name)
        return (name, worker_key)  # a workerKey's form is checked as params are decoded

    def _refuse_closing(self, name: str) -> None:
        doing = self.closing.get(name)
        if doing is not None:
            raise RpcError(
                ErrorType.UNKNOWN_PROFILE, f"profile {name!r} is being {doing}", profile=name
            )

    def _session_key(self, session_id: str, profile: str | None, worker_key: str | None) -> SlotKey:
        key = self.routes.session(session_id)
        if key is None:
            gone = self.routes.retired(session_id) if profile is None else None
            if gone is not None:  # its database went with its profile
                raise RpcError(
                    ErrorType.UNKNOWN_PROFILE,
                    f"session {session_id!r} was in profile {gone!r}, which was deleted",
                    profile=gone,
                )
            return self._key(profile, worker_key)
        self._refuse_closing(key[0])
        wanted = (
            check_name(profile) if profile is not None else key[0],
            worker_key if worker_key is not None else key[1],
        )
        if wanted != key:
            raise _belongs_elsewhere(session_id, key)
        return key

    def _target(
        self, session_id: str | None, profile: str | None, worker_key: str | None
    ) -> SlotKey:
        """The session's worker when one is named, else the profile's."""
        if session_id is not None:
            return self._session_key(session_id, profile, worker_key)
        return self._key(profile, worker_key)

    def _running(self, key: SlotKey) -> WorkerSlot | None:
        """The slot's worker if it is up; never creates or starts one."""
        slot = self.pool.existing(key)
        return (
            slot if slot is not None and slot.state == "ready" and slot.peer is not None else None
        )

    def _forward(
        self,
        req: Request,
        slot: WorkerSlot,
        on_result: Callable[[Any], None] | None = None,
        *,
        on_cancelled: Callable[[Any], None] | None = None,
        on_failed: Callable[[], None] | None = None,
        timeout: float | None = REQUEST_TIMEOUT_S,
    ) -> None:
        """Send ``req`` to ``slot``'s worker (starting it if needed) and relay the answer
        (waited for ``timeout`` seconds; None: until the worker answers or dies)."""

        sent = Forward(req)

        def fail(error: Any) -> None:
            if on_failed is not None:
                on_failed()
            self._reply(req, error=error)

        def handle(resp: Response) -> None:
            self.forwards.done(sent)
            if resp.error is not None:
                fail(resp.error)
                return
            if on_result is not None:
                on_result(resp.result)
            if not self._reply(req, resp.result) and on_cancelled is not None:
                on_cancelled(resp.result)

        def send(peer: Peer) -> None:
            if not self._pending(req):  # cancelled while its worker started: never sent
                if on_failed is not None:
                    on_failed()
                return
            worker_id = peer.request(req.method, req.params, handle, timeout=timeout)
            self.forwards.sent(sent, peer, worker_id)

        with slot.use_lock:
            peer = slot.peer
            # Behind requests still waiting for this worker's start, never before them.
            if slot.state == "ready" and peer is not None and not slot.waiting:
                slot.last_used_at = int(time.time() * 1000)
                send(peer)
                return

        self._start_worker(slot, send, fail)

    def _pending(self, req: Request) -> bool:
        with self._lock:
            return self._inflight.get(req.id) is req

    def _start_worker(
        self,
        slot: WorkerSlot,
        then: Callable[[Peer], object],
        on_error: Callable[[Exception], object],
    ) -> None:
        """Start ``slot``'s worker on a handler thread (never on the host's reader).
        Requests that arrive while it starts wait in ``slot.waiting`` for that one
        thread's outcome: a burst of them costs no thread each. When no thread can be
        started, they all fail at once instead."""
        with slot.use_lock:
            marked = slot.state == "exited"
            if marked:
                slot.state = "starting"  # visible in supervisor/status before the thread runs
            slot.waiting.append((then, on_error))
            if len(slot.waiting) > 1:
                return  # the thread already starting it answers this one too

        def deliver(outcome: Peer | Exception) -> None:
            def each(call: Callable[[Any], object], arg: Any) -> None:
                try:
                    call(arg)
                except Exception as exc:  # one waiter's bug must not strand the rest
                    log(f"hermes-stdio: after starting {slot.label}: {exc!r}")

            with slot.use_lock:
                waiting, slot.waiting = slot.waiting, []
                if not isinstance(outcome, Exception):
                    # Sent under the lock the ready path sends under: a request that
                    # arrives now goes after these, in the order the host sent them
                    # (a shell/write after its shell/exec).
                    for after, _ in waiting:
                        each(after, outcome)
                    return
            for _, failed in waiting:
                each(failed, outcome)

        def run() -> None:
            outcome: Peer | Exception
            try:
                outcome = self.pool.ensure_ready(slot)
            except Exception as exc:
                outcome = exc
            deliver(outcome)

        try:
            spawn_thread(run)
        except Exception as exc:  # no thread (a process thread limit): later ones would wait
            with slot.use_lock:  # for this one for ever; answer everyone now
                if marked and slot.state == "starting" and slot.proc is None:
                    slot.state = "exited"
            deliver(exc)

    def _claim(self, session_id: str, key: SlotKey) -> Callable[[], None] | None:
        """Route the session to ``key`` now, not when the worker answers: two requests
        naming one unrouted session for two workers would otherwise both load it.
        Returns what undoes a new claim if the request fails."""
        owner, claimed = self.routes.claim_session(session_id, key)
        if owner != key:
            raise _belongs_elsewhere(session_id, owner)
        return (lambda: self.routes.release_session(session_id, key)) if claimed else None

    def _h_run_start(self, req: Request, p: t.RunStartParams) -> None:
        self._to_new_run(req, self._target(p.session_id, p.profile, p.worker_key), p.session_id)

    def _h_session_compress(self, req: Request, p: t.SessionCompressParams) -> None:
        key = self._session_key(p.session_id, p.profile, p.worker_key)
        self._to_new_run(req, key, p.session_id)

    def _h_cron_run(self, req: Request, p: cr.CronRunParams) -> None:
        self._to_new_run(req, self._key(p.profile, p.worker_key), None)

    def _to_new_run(self, req: Request, key: SlotKey, session_id: str | None) -> None:
        """Forward a request the worker answers by starting a run (``RunStartResult``)."""
        slot = self.pool.slot(*key)
        release = None if session_id is None else self._claim(session_id, key)

        def record(result: Any) -> None:
            if isinstance(result, dict):
                self.routes.add_run(str(result.get("runId")), str(result.get("sessionId")), key)

        def cancelled(result: Any) -> None:
            # Cancelled after the worker accepted it: stop the run, which still ends
            # with its one run/completed.
            peer = slot.peer
            if peer is not None and isinstance(result, dict):
                params = {"runId": result.get("runId")}
                peer.request("run/interrupt", params, lambda _r: None, timeout=REQUEST_TIMEOUT_S)

        self._forward(req, slot, record, on_cancelled=cancelled, on_failed=release)

    def _h_session_status(self, req: Request, p: t.SessionStatusParams) -> None:
        key = self._session_key(p.session_id, p.profile, p.worker_key)
        known = self.routes.session(p.session_id) == key
        slot = self._running(key)
        if p.if_loaded and slot is None:
            info = t.SessionInfo.unloaded(p.session_id, key[0])
            self._reply(req, encode(info))
            return

        def record(result: Any) -> None:
            if isinstance(result, dict) and result.get("loaded"):
                self.routes.add_session(p.session_id, key)

        self._forward(req, slot or self.pool.slot(*key), None if known else record)

    def _h_session_switchModel(self, req: Request, p: t.SessionSwitchModelParams) -> None:
        self._to_session_creating(req, p.session_id, p.profile, p.worker_key)

    def _h_session_autoApprove(self, req: Request, p: a.SessionAutoApproveParams) -> None:
        self._to_session_creating(req, p.session_id, p.profile, p.worker_key)

    def _h_session_reviewEdits(self, req: Request, p: a.SessionReviewEditsParams) -> None:
        self._to_session_creating(req, p.session_id, p.profile, p.worker_key)

    def _h_session_estimateContext(self, req: Request, p: u.SessionContextParams) -> None:
        self._to_session_creating(req, p.session_id, p.profile, p.worker_key)

    def _h_session_undo(self, req: Request, p: st.SessionUndoParams) -> None:
        self._to_session_creating(req, p.session_id, p.profile, p.worker_key)

    def _h_session_delete(self, req: Request, p: st.SessionDeleteParams) -> None:
        key = self._session_key(p.session_id, p.profile, p.worker_key)
        release = self._claim(p.session_id, key)  # the worker holding it closes it
        gone = lambda _r: self.routes.drop_session(p.session_id)  # noqa: E731
        self._forward(req, self.pool.slot(*key), gone, on_failed=release)

    def _h_session_fork(self, req: Request, p: st.SessionForkParams) -> None:
        key = self._session_key(p.session_id, p.profile, p.worker_key)
        source = self._claim(p.session_id, key)  # loaded, as for session/undo
        branch: Callable[[], None] | None = None
        if p.new_session_id is not None:
            branch_id = p.new_session_id
            if not self.routes.claim_session(branch_id, key)[1]:
                if source is not None:
                    source()
                raise RpcError(
                    ErrorType.INVALID_PARAMS,
                    f"session {branch_id!r} already exists",
                    field="params.newSessionId",
                )
            branch = lambda: self.routes.release_session(branch_id, key)  # noqa: E731

        def record(result: Any) -> None:
            if isinstance(result, dict):  # the branch resumes in the same worker
                self.routes.add_session(str(result.get("sessionId")), key)

        def failed() -> None:
            for release in (source, branch):
                if release is not None:
                    release()

        self._forward(req, self.pool.slot(*key), record, on_failed=failed)

    def _to_session_creating(
        self, req: Request, session_id: str, profile: str | None, worker_key: str | None
    ) -> None:
        """Forward a request that makes the worker hold the session; route it there."""
        key = self._session_key(session_id, profile, worker_key)
        release = self._claim(session_id, key)
        self._forward(req, self.pool.slot(*key), on_failed=release)

    def _h_session_goal(self, req: Request, p: t.SessionGoalParams) -> None:
        key = self._session_key(p.session_id, p.profile, p.worker_key)
        self._forward(req, self.pool.slot(*key))  # goals live in the profile's database

    # Stored histories, titles and archiving live in the profile's database too;
    # background processes and subagents live in the worker of the session that
    # started them.
    _h_session_history = _h_session_rename = _h_session_archive = _h_session_goal
    _h_session_export = _h_session_goal
    _h_process_list = _h_process_kill = _h_session_goal
    _h_subagent_list = _h_subagent_interrupt = _h_session_goal

    def _h_command_list(self, req: Request, p: t.WorkerTarget) -> None:
        self._forward(req, self.pool.slot(*self._key(p.profile, p.worker_key)))

    # These ask the profile's worker too, starting it if needed.
    _h_mcp_status = _h_mcp_connect = _h_command_list
    _h_mcp_loginCallback = _h_mcp_logout = _h_command_list  # a sign-in lives in its worker
    _h_account_loginCancel = _h_account_logout = _h_command_list
    _h_skill_list = _h_skill_setEnabled = _h_command_list
    _h_skill_read = _h_skill_write = _h_skill_create = _h_skill_delete = _h_command_list
    _h_toolset_list = _h_toolset_setEnabled = _h_command_list
    _h_plugin_list = _h_plugin_setEnabled = _h_project_facts = _h_command_list
    _h_session_listStored = _h_session_search = _h_usage_summary = _h_command_list
    _h_checkpoint_list = _h_checkpoint_diff = _h_checkpoint_restore = _h_command_list
    _h_cron_list = _h_cron_create = _h_cron_update = _h_command_list
    _h_cron_pause = _h_cron_resume = _h_cron_remove = _h_cron_output = _h_command_list
    _h_config_read = _h_config_write = _h_command_list
    _h_env_list = _h_env_set = _h_env_remove = _h_command_list
    _h_memory_list = _h_memory_add = _h_memory_replace = _h_memory_remove = _h_command_list

    def _h_model_list(self, req: Request, p: pv.ModelListParams) -> None:
        self._forward(req, self.pool.slot(*self._target(p.session_id, p.profile, p.worker_key)))

    # The same targeting: a session's worker, else the profile's.
    _h_tool_list = _h_reference_complete = _h_model_oneShot = _h_model_list

    def _h_session_list(self, req: Request, p: t.SessionListParams) -> None:
        slot = self._running(self._key(p.profile, p.worker_key))
        if slot is None:
            self._reply(req, encode(t.SessionListResult([])))
            return
        self._forward(req, slot)

    def _h_session_destroy(self, req: Request, p: t.SessionTarget) -> None:
        slot = self._running(self._session_key(p.session_id, p.profile, p.worker_key))
        if slot is None:
            self._reply(req, encode(t.SessionDestroyResult(False)))
            return
        self._forward(req, slot, lambda _r: self.routes.drop_session(p.session_id))
