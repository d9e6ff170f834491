"""Worker processes: one per (profile, workerKey), started on demand.

Contract:
- ``ensure_ready(slot)`` blocks (bounded by ``ready_timeout``) until the slot's
  process has sent ``worker/ready`` with our protocol version, starting it if
  needed; concurrent callers share one start. It raises ``worker_unavailable``
  when the start fails or the slot is backing off after a crash loop
  (``max_crashes`` unexpected exits within ``crash_window_s``) until
  ``reset_backoff``.
- ``on_ready(slot)`` is called on the worker's reader thread once it is ready,
  before the callers waiting for the start go on, so before anything else the
  worker sends is handled.
- When a worker's stdout closes, its pending requests fail with
  ``worker_crashed`` (or ``worker_unavailable`` when we stopped it), the
  process is reaped (bounded), and ``on_exit(slot, note)`` is called exactly
  once per process, on that worker's reader thread (``worker_stops``).
- Nothing we send a worker ever blocks the sending thread (the host's reader):
  a full pipe is drained by a flusher thread, and while more than
  ``INPUT_BACKLOG_BYTES`` wait unread, requests to it fail at once with
  ``worker_overloaded``, so a worker that stops reading costs bounded memory
  and never stalls the other workers or the supervisor.
- ``stop(slot)`` (graceful, bounded) and ``close()`` (shutdown) are in
  ``worker_stops``. A new process for a slot starts only once the previous
  one's exit has been handled (``on_exit`` returned), so the runs that exit
  ends never include the new process's.
- ``forget(slot, in_use)`` drops a keyed slot whose worker has exited and
  that ``in_use`` says nothing refers to, so slots do not pile up with every
  workerKey ever used; with ``any_key``, an unkeyed one too (its profile is
  gone: its crash back-off means nothing any more). A slot whose lock
  another thread holds (a start may be under way) is kept. A caller still
  holding a forgotten slot that starts it gets the key's current slot
  started instead.
- ``tell_opt_out`` sends ``worker/setOptOut`` to the running workers when what
  the host opted out of changes; a worker started later gets it before
  anything else (nothing when the host opted out of nothing).
- With a ``template``, a worker is forked from it when it can be, and spawned
  cold otherwise; the slot records which and why (``start_mode``,
  ``fork_fallback``). Either way the rest is the same.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import PROTOCOL_VERSION, decode, encode
from ..protocol import workers as pw
from ..protocol.opt_out import NO_OPT_OUT, OptOut
from ..transport import Peer, relay_stderr, spawn_child
from ..transport.log import log
from ..transport.process import WORKER_TAG, ChildProcess
from ..wire import ErrorType, Notification, Request, RpcError
from .launch import worker_command, worker_options
from .profiles import worker_env
from .routes import SlotKey
from .slot import WorkerSlot, now_ms
from .template import TemplateUnavailable, WorkerTemplate
from .worker_stops import EXIT_HANDLED_S, ExitSink, WorkerStops

# Unread bytes to a worker past which its requests are refused (one request of
# any size is taken below it).
INPUT_BACKLOG_BYTES = 64 * 1024 * 1024


NotifySink = Callable[[WorkerSlot, Notification, bytes], None]
# Claims a worker frame for verbatim relay (updating routes) / relays a batch of them.
RelayFactory = Callable[
    [WorkerSlot], tuple[Callable[[bytes], bool], Callable[[list[bytes]], object]] | None
]


class _Connection:
    """The supervisor's end of one worker process's pipes."""

    def __init__(self, pool: WorkerPool, slot: WorkerSlot, proc: ChildProcess, token: str) -> None:
        self.pool, self.slot, self.proc, self.token = pool, slot, proc, token
        self.exit_handled = threading.Event()

    def on_request(self, peer: Peer, request: Request) -> None:
        peer.respond_error(request.id, RpcError(ErrorType.METHOD_NOT_FOUND, "workers may not call"))

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None:
        if note.method == "worker/ready":
            self.pool.mark_ready(self.slot, self.proc, note.params)
        else:
            self.pool.on_notification(self.slot, note, body)

    def on_closed(self, peer: Peer, reason: str) -> None:
        try:
            self.pool.reap(self.slot, self.proc, reason, self.token)
        finally:
            self.exit_handled.set()


_NOTHING_OPTED_OUT = encode(NO_OPT_OUT.for_worker())


class WorkerPool(WorkerStops):
    def __init__(
        self,
        home: Path,
        agent_python: str,
        base_env: dict[str, str],
        on_notification: NotifySink,
        on_exit: ExitSink,
        *,
        relay_for: RelayFactory | None = None,
        max_body_bytes: int,
        worker_args: list[str] | None = None,
        ready_timeout: float = 20.0,
        max_crashes: int = 5,
        crash_window_s: float = 180.0,
        template: WorkerTemplate | None = None,
    ) -> None:
        self.home = home
        self.agent_python = agent_python
        self.base_env = base_env
        self.on_notification = on_notification
        self.on_exit = on_exit
        self.relay_for: RelayFactory = relay_for or (lambda _slot: None)
        self.max_body_bytes = max_body_bytes
        self.worker_args = worker_args or []
        self.ready_timeout = ready_timeout
        self.max_crashes = max_crashes
        self.crash_window_s = crash_window_s
        self.template = template
        self._lock = threading.Lock()
        self._slots: dict[SlotKey, WorkerSlot] = {}
        self.closing = False
        self.on_ready: Callable[[WorkerSlot], None] | None = None
        # Called under the slot's lock before a start; may stop another worker or raise.
        self.before_start: Callable[[WorkerSlot], None] | None = None
        self._opt_out_lock = threading.Lock()
        self._opt_out = _NOTHING_OPTED_OUT

    def slot(self, profile: str, worker_key: str | None) -> WorkerSlot:
        with self._lock:
            slot = self._slots.get((profile, worker_key))
            if slot is None:
                slot = self._slots[(profile, worker_key)] = WorkerSlot(profile, worker_key)
            return slot

    def existing(self, key: SlotKey) -> WorkerSlot | None:
        with self._lock:
            return self._slots.get(key)

    def slots(self) -> list[WorkerSlot]:
        with self._lock:
            return list(self._slots.values())

    def forget(
        self, slot: WorkerSlot, in_use: Callable[[SlotKey], bool], any_key: bool = False
    ) -> bool:
        """Drop ``slot`` if it is keyed (or ``any_key``), its worker has exited (not
        crashed into back-off), no other thread holds its lock and ``in_use`` is
        false for its key; whether it was dropped."""
        if (slot.worker_key is None and not any_key) or not slot.lock.acquire(blocking=False):
            return False
        try:
            with self._lock:
                if (
                    slot.state != "exited"
                    or slot.proc is not None
                    or self._slots.get(slot.key) is not slot
                    or in_use(slot.key)
                ):
                    return False
                del self._slots[slot.key]
                slot.forgotten = True
        finally:
            slot.lock.release()
        log(f"hermes-stdio: forgetting worker {slot.label}: nothing routed to it")
        return True

    def ensure_ready(self, slot: WorkerSlot) -> Peer:
        slot.last_used_at = now_ms()
        peer = slot.peer
        if slot.state == "ready" and peer is not None:
            return peer
        with slot.lock:  # one start at a time per slot; others wait here, bounded below
            if not slot.forgotten:
                return self._ensure_ready_locked(slot)
        # Forgotten while this caller held it: start the key's slot as it is now.
        return self.ensure_ready(self.slot(*slot.key))

    def _ensure_ready_locked(self, slot: WorkerSlot) -> Peer:
        if self.closing:
            raise RpcError(ErrorType.SHUTTING_DOWN, "the server is shutting down")
        if slot.state == "ready" and slot.peer is not None:
            return slot.peer
        if slot.state == "backoff":
            raise RpcError(
                ErrorType.WORKER_UNAVAILABLE,
                f"worker for profile {slot.label!r} crashed {self.max_crashes} times in "
                f"{self.crash_window_s:g}s; call worker/restart or initialize to try again",
                profile=slot.profile,
            )
        try:
            if self.before_start is not None:
                self.before_start(slot)
            return self._start(slot)
        except RpcError:
            if slot.proc is None and slot.state == "starting":
                slot.state = "exited"
            raise

    def _start(self, slot: WorkerSlot) -> Peer:
        # The previous process's exit must be handled first: it ends that process's
        # runs by slot, and must not end the new one's.
        if not slot.exit_handled.wait(EXIT_HANDLED_S):
            raise RpcError(
                ErrorType.WORKER_UNAVAILABLE,
                f"the previous worker for profile {slot.label!r} is still exiting",
                profile=slot.profile,
            )
        # One argument: a key may start with "-", which argparse reads as an option.
        key_arg = [f"--worker-key={slot.worker_key}"] if slot.worker_key else []
        extra = [*self.worker_args, *key_arg]
        argv = worker_command(self.agent_python, slot.profile, extra)
        env = worker_env(self.home, slot.profile, self.base_env)
        token = os.urandom(16).hex()
        env[WORKER_TAG] = token  # inherited by its tool commands: see kill_tagged
        if slot.worker_key:
            env["HERMES_STDIO_WORKER_KEY"] = slot.worker_key
        slot.ready.clear()
        slot.start_error = None
        slot.stopping = False
        proc: ChildProcess | None = None
        slot.start_mode, slot.fork_fallback = "spawned", None
        if self.template is not None:
            try:
                options = worker_options(slot.profile, extra)
                proc = self.template.fork(options, env, env["HERMES_HOME"], argv)
                slot.start_mode = "forked"
            except (TemplateUnavailable, OSError) as exc:
                slot.fork_fallback = str(exc) or type(exc).__name__
        if proc is None:
            # A fork the template carries out late must not share this worker's tag.
            env[WORKER_TAG] = token = os.urandom(16).hex()
            try:
                proc = spawn_child(argv, env, cwd=env["HERMES_HOME"])
            except OSError as exc:
                raise RpcError(ErrorType.WORKER_UNAVAILABLE, f"cannot start worker: {exc}") from exc
        assert proc.stdout is not None and proc.stdin is not None
        slot.proc, slot.state, slot.started_at = proc, "starting", now_ms()
        relay_stderr(proc, f"[worker:{slot.label}] ")
        connection = _Connection(self, slot, proc, token)
        slot.exit_handled = connection.exit_handled
        # The peer's writer becomes the one owner of our end of the worker's stdin,
        # so its close can never race a flusher's write (stop passes close_write).
        write_fd = os.dup(proc.stdin.fileno())
        proc.stdin.close()
        peer = Peer(
            f"worker:{slot.label}",
            proc.stdout.fileno(),
            write_fd,
            connection,
            max_body_bytes=self.max_body_bytes,
            answer_invalid=False,
            relay=self.relay_for(slot),
            handoff=True,
            owns_write_fd=True,
            refuse_over=INPUT_BACKLOG_BYTES,
            # Refusal bounds what waits; a sender never blocks on the queue itself.
            max_pending_bytes=sys.maxsize,
        )
        peer.close_error = RpcError(
            ErrorType.WORKER_CRASHED,
            f"worker for profile {slot.label!r} exited",
            profile=slot.profile,
        )
        peer.overload_error = RpcError(
            ErrorType.WORKER_OVERLOADED,
            f"worker for profile {slot.label!r} has not read the "
            f"{INPUT_BACKLOG_BYTES >> 20} MiB already sent to it; try again later",
            profile=slot.profile,
        )
        with self._opt_out_lock:  # told before anything else: before its first run
            slot.peer = peer
            if self._opt_out != _NOTHING_OPTED_OUT:
                peer.notify("worker/setOptOut", self._opt_out)
        peer.start()
        if not slot.ready.wait(self.ready_timeout):
            slot.start_error = RpcError(
                ErrorType.WORKER_UNAVAILABLE, f"worker did not get ready in {self.ready_timeout:g}s"
            )
        if slot.start_error is not None:
            self.stop(slot, reason="start_failed")
            raise slot.start_error
        return peer

    def tell_opt_out(self, opt_out: OptOut) -> None:
        """What the host opted out of: told to every worker running now when it
        changes, and first to each worker started from now on."""
        params = encode(opt_out.for_worker())
        with self._opt_out_lock:
            if params == self._opt_out:
                return
            self._opt_out = params
            for slot in self.slots():
                if slot.peer is not None and slot.state in ("starting", "ready"):
                    slot.peer.notify("worker/setOptOut", params)

    def mark_ready(self, slot: WorkerSlot, proc: ChildProcess, params: dict[str, Any]) -> None:
        try:
            ready = decode(pw.WorkerReadyNotification, params)
            if ready.protocol_version != PROTOCOL_VERSION:
                slot.start_error = RpcError(
                    ErrorType.WORKER_UNAVAILABLE,
                    f"worker speaks protocol {ready.protocol_version}, "
                    f"supervisor {PROTOCOL_VERSION}",
                )
        except RpcError as exc:
            slot.start_error = RpcError(
                ErrorType.WORKER_UNAVAILABLE, f"bad worker/ready: {exc.message}"
            )
        if slot.start_error is None and slot.proc is proc:
            slot.state = "ready"
            if ready.start_mode == "spawned" and slot.start_mode == "forked":
                slot.start_mode, slot.fork_fallback = "spawned", ready.fork_fallback
        try:
            # Before the start's waiters go on: the host hears of the worker before any
            # answer from it (this is the worker's reader thread, which relays those).
            if slot.state == "ready" and self.on_ready is not None:
                self.on_ready(slot)
        finally:
            slot.ready.set()

    def reset_backoff(self, slot: WorkerSlot | None = None) -> None:
        for s in [slot] if slot else self.slots():
            s.crashes.clear()
            if s.state == "backoff":
                s.state = "exited"
