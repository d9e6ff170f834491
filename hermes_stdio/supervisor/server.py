"""The supervisor: the host's JSON-RPC peer (routed methods are in ``routing``).

Contract:
- Lifecycle like LSP: ``initialize`` first (others get -32002), ``shutdown``
  stops every worker, then ``exit`` ends the process (0 after shutdown, else
  1). EOF on stdin means the host is gone. What ``initialize``'s capabilities
  opt out of is checked first (``protocol.opt_out``) and holds until the next
  ``initialize``: the workers are told (``WorkerPool.tell_opt_out``).
- Every host request gets exactly one response; ``$/cancelRequest`` answers
  a pending one at once with -32800 and drops its later result. It names the
  request by the id it was sent with, even one the params rules would refuse.
- Requests are validated against the method table before anything else.
  Supervisor-only methods (lifecycle, ``supervisor/status`` (``worker_status``),
  the ``profile/*`` methods (``profile_methods``), ``soul/*`` (``soul``),
  ``worker/restart``) never touch a worker, except those of a profile
  deleted, renamed or restarted; the rest is routed to workers
  (``routing.RoutedMethods``).
  Restarts of one worker that arrive before the pending one has stopped the
  old process share its result;
  ``profile/list`` requests that arrive while one is being read share the
  next reading (``batch``).
- ``initialize``'s ``options.scheduleCron`` switches the cron schedule
  (``cron_schedule``) on or off; the profile watch tells it of job files
  and profiles that change, and ``shutdown`` switches it off.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hermes_stdio

from ..protocol import (
    HOST_METHODS,
    PROTOCOL_VERSION,
    SERVER_NOTIFICATIONS,
    decode,
    encode,
)
from ..protocol import profiles as pf
from ..protocol import types as t
from ..protocol import workers as pw
from ..protocol.events import EVENT_TYPES
from ..protocol.opt_out import NO_OPT_OUT, opt_out
from ..transport import Peer
from ..transport.log import log, report_error
from ..wire import ErrorType, Notification, Request, RequestId, RpcError, link_body_limit, load_fast
from .batch import Batch
from .cron_schedule import CronSchedule, CronTicks
from .file_pushes import FilePushes
from .forwards import Forwards
from .idle import IdleWorkers
from .profile_methods import ProfileMethods
from .profiles import listing, template_env
from .relay import CommandStates, RelayMethods
from .routes import Routes
from .routing import RoutedMethods, spawn_thread
from .run_routing import RunRouting
from .shell_routing import ShellRouting
from .sign_ins import SignInRouting, SignIns
from .slot import WorkerSlot
from .soul import SoulMethods
from .template import SUPPORTED as TEMPLATE_SUPPORTED
from .template import WorkerTemplate
from .worker_status import WorkerStatus
from .workers import WorkerPool


def _any_request_id(note: Notification) -> RequestId | None:
    """A cancel's ``id`` as sent, when only the params rules refused it: any id a
    request was accepted with (2**63, a lone surrogate) can be cancelled."""
    params = note.params if isinstance(note.params, dict) else {}
    target = params.get("id")
    ok = isinstance(target, str) or (isinstance(target, int) and not isinstance(target, bool))
    return target if ok and set(params) == {"id"} else None


# How long a profile/list waits for the profile watch to read its starting point.
WATCH_SETTLE_S = 5.0


class Supervisor(
    RoutedMethods,
    RunRouting,
    ShellRouting,
    RelayMethods,
    ProfileMethods,
    SoulMethods,
    CronTicks,
    SignInRouting,
    FilePushes,
    WorkerStatus,
):
    def __init__(
        self,
        home: Path,
        agent_python: str,
        *,
        max_body_bytes: int,
        base_env: dict[str, str] | None = None,
        worker_args: list[str] | None = None,
        ready_timeout: float = 20.0,
        worker_template: bool = False,
        worker_idle_s: float = 0.0,
        max_workers: int = 0,
    ) -> None:
        self.home = home
        self.max_body_bytes = max_body_bytes
        self.started = time.monotonic()
        self.routes = Routes()
        self.command_states = CommandStates()
        self.sign_ins = SignIns()
        env = dict(os.environ if base_env is None else base_env)
        self.closing: dict[str, str] = {}  # profiles being deleted or renamed now
        template = (
            WorkerTemplate(agent_python, functools.partial(template_env, home, env))
            if worker_template and TEMPLATE_SUPPORTED
            else None
        )
        self.pool = WorkerPool(
            home,
            agent_python,
            env,
            self._relay,
            self._worker_exited,
            relay_for=self._fast_relay,
            max_body_bytes=link_body_limit(max_body_bytes),
            worker_args=worker_args,
            ready_timeout=ready_timeout,
            template=template,
        )
        self.idle = IdleWorkers(self.pool, self.routes, worker_idle_s, max_workers=max_workers)
        self.pool.on_ready = self._worker_started
        self.pool.before_start = self.idle.make_room
        self.host: Peer | None = None
        self.opt_out = NO_OPT_OUT  # initialize's capabilities
        self.state = "uninitialized"  # -> initialized -> shut_down
        self.exit_code: int | None = None
        self.exited = threading.Event()
        self._lock = threading.Lock()
        self._inflight: dict[RequestId, Request] = {}  # host requests not answered yet
        self.forwards = Forwards()
        self._profile_lists = Batch(self._profile_listing, self._answer_all)
        self._watch_started = False  # one profile watch per process, whatever initializes
        self._watch_settled = threading.Event()  # it read its baseline (or cannot watch)
        self.cron_schedule = CronSchedule(
            lambda: [(p.name, Path(p.home)) for p in listing(self.home)],
            self._scheduled_tick,
            spawn=spawn_thread,
        )

    def attach(self, host: Peer) -> None:
        self.host = host

    # --- replies -----------------------------------------------------------

    def _reply(self, req: Request, result: Any = None, error: Any = None) -> bool:
        """Answer a host request once; False if it was already answered (cancelled).
        Pending requests are known by identity: once cancelled, an id may be reused."""
        with self._lock:
            if self._inflight.get(req.id) is not req:
                return False
            del self._inflight[req.id]
        assert self.host is not None
        if error is not None:
            self.host.respond_error(
                req.id, error if isinstance(error, dict) else report_error(error)
            )
        else:
            self.host.respond(req.id, result)
        return True

    def _answer_all(self, group: list[Request], result: Any, error: Exception | None) -> None:
        """The same answer to each request of a group; an error is logged once."""
        if error is not None:
            wire_error, encoded = report_error(error), None
        else:
            wire_error, encoded = None, encode(result)
        for each in group:
            self._reply(each, encoded, wire_error)

    def _in_thread(self, req: Request, fn: Callable[[], Any]) -> None:
        def run() -> None:
            try:
                self._reply(req, encode(fn()))
            except Exception as exc:
                self._reply(req, error=exc)

        spawn_thread(run)

    # --- host side ---------------------------------------------------------

    def on_request(self, peer: Peer, req: Request) -> None:
        method = HOST_METHODS.get(req.method)
        with self._lock:
            if req.id in self._inflight:
                peer.respond_error(
                    None, RpcError(ErrorType.INVALID_REQUEST, f"duplicate request id {req.id!r}")
                )
                return
            self._inflight[req.id] = req
        try:
            if method is None or method.notification:
                raise RpcError(
                    ErrorType.METHOD_NOT_FOUND, f"unknown method {req.method!r}", method=req.method
                )
            if self.state == "uninitialized" and req.method != "initialize":
                raise RpcError(ErrorType.SERVER_NOT_INITIALIZED, f"{req.method} before initialize")
            if self.state == "shut_down":
                raise RpcError(ErrorType.SHUTTING_DOWN, f"{req.method} after shutdown; send exit")
            params: Any = decode(method.params, req.params)
            getattr(self, "_h_" + req.method.replace("/", "_"))(req, params)
        except Exception as exc:
            self._reply(req, error=exc)

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None:
        method = HOST_METHODS.get(note.method)
        if method is None or not method.notification:
            log(f"hermes-stdio: ignoring unknown notification {note.method!r}")
            return
        try:
            params: Any = decode(method.params, note.params)
        except RpcError as exc:
            target = _any_request_id(note) if note.method == "$/cancelRequest" else None
            if target is None:
                log(f"hermes-stdio: ignoring {note.method}: {exc.message}")
                return
            params = t.CancelParams(target)
        if note.method == "exit":
            self.finish(0 if self.state == "shut_down" else 1, "exit notification")
        elif note.method == "$/cancelRequest":
            assert isinstance(params, t.CancelParams)
            with self._lock:
                cancelled = self._inflight.pop(params.id, None)
            if cancelled is not None:  # answered now; the id is free again
                peer.respond_error(params.id, RpcError(ErrorType.REQUEST_CANCELLED))
                self.forwards.cancel(cancelled)  # the worker may skip it

    def on_closed(self, peer: Peer, reason: str) -> None:
        self.finish(0 if self.state == "shut_down" else 1, f"host input closed ({reason})")

    def finish(self, code: int, reason: str) -> None:
        if self.exit_code is None:
            self.exit_code = code
            log(f"hermes-stdio: exiting with code {code}: {reason}")
        self.exited.set()

    # --- supervisor-only methods ------------------------------------------

    def _h_initialize(self, req: Request, p: t.InitializeParams) -> None:
        if p.protocol_version != PROTOCOL_VERSION:
            raise RpcError(
                ErrorType.UNSUPPORTED_PROTOCOL,
                f"protocol version {p.protocol_version} is not supported",
                supported=[PROTOCOL_VERSION],
            )
        # Checked before anything changes: a refused initialize leaves no trace.
        prewarm = list(dict.fromkeys(self._key(name, None) for name in self._prewarm_list(p)))
        muted = opt_out(p.capabilities)
        limit = self.idle.max_workers
        if 0 < limit < len(prewarm):
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"prewarmProfiles names {len(prewarm)} profiles; --max-workers allows {limit}",
                field="params.options.prewarmProfiles",
            )
        self.state = "initialized"
        self.opt_out = muted
        self.pool.tell_opt_out(muted)
        self.pool.reset_backoff()
        caps = t.ServerCapabilities(
            methods=list(HOST_METHODS),
            notifications=list(SERVER_NOTIFICATIONS),
            run_events=list(EVENT_TYPES),
            max_body_bytes=self.max_body_bytes,
        )
        info = t.ServerInfo(name="hermes-stdio", version=hermes_stdio.__version__)
        self._reply(req, encode(t.InitializeResult(PROTOCOL_VERSION, info, caps)))
        load_fast()  # after the answer: its import (~10 ms) delays the next request once
        if self.pool.template is not None:
            # After the answer, and off the host's reader: reading the profiles' .env
            # files and spawning it would delay the next request.
            spawn_thread(self.pool.template.start)
        if not self._watch_started:  # another would push every change once more
            self._watch_started = True
            try:
                spawn_thread(self._watch_profiles)  # reads every profile's YAML: off the reader
            except RuntimeError:
                self._watch_settled.set()  # no watch: listings need not wait for one
                raise
        for slot in [self.pool.slot(*key) for key in prewarm]:
            self._start_worker(
                slot, lambda _peer: None, functools.partial(self._prewarm_failed, slot)
            )
        scheduled = bool(p.options is not None and p.options.schedule_cron)
        if scheduled or self.cron_schedule.on:  # reading every profile's jobs: off the reader
            spawn_thread(functools.partial(self.cron_schedule.enable, scheduled))

    @staticmethod
    def _prewarm_list(p: t.InitializeParams) -> list[str]:
        return list(p.options.prewarm_profiles or []) if p.options is not None else []

    @staticmethod
    def _prewarm_failed(slot: WorkerSlot, exc: Exception) -> None:
        log(f"hermes-stdio: prewarming {slot.label} failed: {exc}")

    def _h_shutdown(self, req: Request, p: t.EmptyParams) -> None:
        def run() -> None:
            self.state = "shut_down"
            self.cron_schedule.enable(False)  # starts no worker now
            self.pool.close()

        self._in_thread(req, run)

    def _h_profile_list(self, req: Request, p: t.EmptyParams) -> None:
        self._profile_lists.add(req)  # reads every profile's YAML: off the host's reader

    def _profile_listing(self) -> pf.ProfileListResult:
        # Never a listing older than the watch's starting point: a change made between
        # the two would reach the host neither in the listing nor as a push.
        self._watch_settled.wait(WATCH_SETTLE_S)
        live = [s.profile for s in self.pool.slots() if s.state in ("starting", "ready")]
        return pf.ProfileListResult(
            [
                pf.ProfileInfo(
                    p.name,
                    p.home,
                    p.model,
                    p.provider,
                    p.description,
                    live.count(p.name),
                    p.problem,
                    p.active,
                )
                for p in listing(self.home)
            ]
        )

    def _h_worker_restart(self, req: Request, p: t.WorkerTarget) -> None:
        slot = self.pool.slot(*self._key(p.profile, p.worker_key))
        with slot.use_lock:
            if slot.restart_group is not None:  # its restart has not stopped the old one yet
                slot.restart_group.append(req)
                return
            group = slot.restart_group = [req]

        def restart() -> pw.WorkerRestartResult:
            # The group closes while the slot's lock is held, so no start, ours or
            # another request's, can come between the stop and it.
            with slot.lock:
                self.pool.stop(slot, reason="restart")
                self.pool.reset_backoff(slot)
                with slot.use_lock:
                    slot.restart_group = None
            self.pool.ensure_ready(slot)
            # The key's slot now: a keyed one stopped meanwhile may have been forgotten.
            return pw.WorkerRestartResult(self._worker_info(self.pool.slot(*slot.key)))

        def run() -> None:
            try:
                result, error = restart(), None
            except Exception as exc:
                result, error = None, exc
            self._answer_all(group, result, error)

        try:
            spawn_thread(run)
        except BaseException:  # no thread: later restarts must not join a group that never runs
            with slot.use_lock:
                slot.restart_group = None
            raise
