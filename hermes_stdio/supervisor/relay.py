"""What workers send back, relayed to the host.

Contract (a mixin of ``Supervisor``, which provides ``routes`` and ``host``):
- Worker run notifications are relayed byte for byte in batches, reading only
  the routing prefix the worker always writes first (``_fast_relay``);
  anything else is parsed (``_relay``), and only the notifications the
  protocol relays from workers pass. The requests a run waits on (approvals,
  questions, compression, sudo, secrets) are noted from their ``requested`` and
  ``resolved`` notifications.
- When a worker dies (``_worker_exited``), its sessions stay routed to its
  slot, however it ended, so the next worker resumes them. Each of its
  unfinished runs gets, with the next ``seq`` numbers, one ``approval/resolved`` /
  ``clarify/resolved`` / ``compression/resolved`` / ``sudo/resolved`` /
  ``secret/resolved`` (``cancelled``) per request it still waited on, then one synthesized
  ``run/completed`` (``worker_crashed``, or ``worker_stopped`` when we
  stopped it); each sign-in it had under way (``sign_ins``) gets its failed
  ``mcp/loginCompleted`` or ``account/loginCompleted``; then the host gets
  ``worker/exited``.
- ``worker/commandsChanged`` is not relayed: the host gets one
  ``command/listChanged`` when a worker reports a state of the profile's
  command files other than the last one reported for that profile by any of
  its workers (``CommandStates``). The first report of a profile is its
  starting state, so each change is pushed once, however many of the
  profile's workers saw it, and a change made while none ran is pushed when
  one starts.
- ``worker/mcpChanged`` becomes the host's ``mcp/statusChanged``, and
  ``worker/mcpLoginEnded`` its ``mcp/loginCompleted`` (``worker/accountLoginEnded``
  its ``account/loginCompleted``), naming the worker's profile and ``workerKey``.
- A notification outside any run that the host opted out of (``opt_out``) is
  dropped here (``_notify_host`` for the supervisor's own); a run's never
  reaches us, its worker drops it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from ..protocol import (
    RELAYED_NOTIFICATIONS,
    SERVER_NOTIFICATIONS,
    WORKER_NOTIFICATIONS,
    decode,
    encode,
)
from ..protocol import accounts as ac
from ..protocol import mcp_login as ml
from ..protocol import toolbox as tx
from ..protocol import types as t
from ..protocol import workers as pw
from ..protocol.model import fields_of
from ..protocol.opt_out import OptOut
from ..transport import Peer
from ..transport.log import log
from ..wire import Notification, RpcError
from ..wire.jsonrpc import encode_notification
from .routes import Routes
from .sign_ins import SignIns
from .slot import WorkerSlot, now_ms

# What a worker's Run writes first (outbox.py): method, runId, sessionId, seq. Approval
# and clarify notifications are rare and take the parsed path, which notes their ids.
_RUN_PREFIX = re.compile(
    rb'\{"jsonrpc":"2\.0","method":"(run/started|run/delta|run/event|run/completed)",'
    rb'"params":\{"runId":"([A-Za-z0-9_-]+)","sessionId":"([^"\\]+)","seq":([0-9]+)[,}]'
)


def _unanswered(kind: str) -> dict[str, None]:
    """The fields of ``kind/resolved`` after its outcome, all null: what a request
    closed without an answer carries (read from the protocol type, protocol/asks.py)."""
    names = [f.wire for f in fields_of(SERVER_NOTIFICATIONS[f"{kind}/resolved"].params)]
    return dict.fromkeys(names[names.index("outcome") + 1 :])


class CommandStates:
    """The last state of each profile's command files its workers reported."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[str, str] = {}

    def changed(self, profile: str, fingerprint: str) -> bool:
        """Record the state; True if it differs from the profile's last one."""
        with self._lock:
            last = self._last.get(profile)
            self._last[profile] = fingerprint
        return last is not None and last != fingerprint


class RelayMethods:
    routes: Routes
    host: Peer | None
    command_states: CommandStates
    sign_ins: SignIns
    opt_out: OptOut

    def _notify_host(self, method: str, params: Any) -> None:
        """A notification outside any run, unless the host opted out of it."""
        assert self.host is not None
        if not self.opt_out.mutes(method):
            self.host.notify(method, params)

    def _fast_relay(
        self, slot: WorkerSlot
    ) -> tuple[Callable[[bytes], bool], Callable[[list[bytes]], object]]:
        """The hot path: run notifications are relayed byte for byte, reading only the
        routing prefix the worker always writes first; anything else is parsed."""

        def accept(body: bytes) -> bool:
            m = _RUN_PREFIX.match(body)
            if m is None:
                return False
            self._track(
                slot, m.group(1).decode(), m.group(2).decode(), m.group(3).decode(), int(m.group(4))
            )
            return True

        def sink(batch: list[bytes]) -> object:
            assert self.host is not None
            return self.host.writer.send_many(batch)

        return accept, sink

    def _relay(self, slot: WorkerSlot, note: Notification, body: bytes) -> None:
        if note.method in WORKER_NOTIFICATIONS:
            self._worker_told(slot, note)
            return
        if note.method not in RELAYED_NOTIFICATIONS:
            log(f"hermes-stdio: dropping unknown worker notification {note.method!r}")
            return
        params = note.params
        run_id, seq = params.get("runId"), params.get("seq")
        if isinstance(run_id, str) and isinstance(seq, int):
            self._track(slot, note.method, run_id, str(params.get("sessionId")), seq)
            kind, _, event = note.method.partition("/")
            ident = params.get(f"{kind}Id")
            if event in ("requested", "resolved") and isinstance(ident, str):
                self.routes.note_waiting(run_id, (kind, ident), event == "requested")
        elif self.opt_out.mutes(note.method):
            return  # one its worker wrote before it was told (a run's it never writes)
        assert self.host is not None
        self.host.send_raw(body)

    def _worker_told(self, slot: WorkerSlot, note: Notification) -> None:
        """A worker's own notification (not ``worker/ready``) becomes the host's."""
        try:
            told: object = decode(WORKER_NOTIFICATIONS[note.method].params, note.params)
        except RpcError as exc:
            log(f"hermes-stdio: bad {note.method} from {slot.label!r}: {exc.message}")
            return
        if isinstance(told, pw.WorkerCommandsChangedNotification):
            if self.command_states.changed(slot.profile, told.fingerprint):
                listed = tx.CommandListChangedNotification(slot.profile)
                self._notify_host("command/listChanged", encode(listed))
        elif isinstance(told, pw.WorkerMcpChangedNotification):
            status = tx.McpStatusChangedNotification(slot.profile, slot.worker_key, told.servers)
            self._notify_host("mcp/statusChanged", encode(status))
        elif isinstance(told, ml.WorkerMcpLoginEndedNotification):
            self.sign_ins.ended(slot.key, told.login_id)
            ok = told.error is None
            ended = ml.McpLoginCompletedNotification(
                slot.profile, slot.worker_key, told.login_id, told.name, ok, told.error
            )
            self._notify_host("mcp/loginCompleted", encode(ended))
        elif isinstance(told, ac.WorkerAccountLoginEndedNotification):
            self.sign_ins.ended(slot.key, told.login_id)
            done = ac.AccountLoginCompletedNotification(
                slot.profile,
                slot.worker_key,
                told.login_id,
                told.provider,
                told.error is None,
                told.error,
            )
            self._notify_host("account/loginCompleted", encode(done))

    def _track(self, slot: WorkerSlot, method: str, run_id: str, session_id: str, seq: int) -> None:
        """What a relayed run notification tells the routes (fast and slow path alike)."""
        if method == "run/started":
            self.routes.add_run(run_id, session_id, slot.key)
        elif method == "run/completed":
            slot.last_used_at = now_ms()  # idleness counts from the end of its last run
        self.routes.note_seq(run_id, seq, method == "run/completed")

    def _worker_exited(self, slot: WorkerSlot, note: pw.WorkerExitedNotification) -> None:
        assert self.host is not None
        why = "was stopped" if note.expected else f"exited ({note.signal or note.exit_code})"
        kind = t.RunErrorType.WORKER_STOPPED if note.expected else t.RunErrorType.WORKER_CRASHED
        # Its sessions keep their routes, however it ended: a request naming one alone
        # must reach this profile again, not start a new session under the default.
        for route in self.routes.unfinished(slot.key):
            seq = route.last_seq
            # What the run waited for dies with it: each request is still closed once.
            for what, ident in list(route.waiting):
                seq += 1
                closed: dict[str, Any] = {
                    "runId": route.run_id,
                    "sessionId": route.session_id,
                    "seq": seq,
                    f"{what}Id": ident,
                    "outcome": "cancelled",
                    **_unanswered(what),
                }
                self.host.send_raw(encode_notification(f"{what}/resolved", closed))
            error = t.RunError(kind, f"worker for profile {slot.label!r} {why} during the run")
            done = t.RunCompletedNotification(
                route.run_id, route.session_id, seq + 1, "error", None, error
            )
            final = t.RunResultResult(route.run_id, route.session_id, "error", None, error)
            self.routes.finish(route, encode(final))
            self.host.send_raw(encode_notification("run/completed", encode(done)))
        for method, params in self.sign_ins.orphaned(slot.key, f"the worker {why}"):
            self._notify_host(method, params)  # a sign-in dies with its worker, told once
        self._notify_host("worker/exited", encode(note))
