"""The end of a worker process: stopping it, reaping it, and stopping them all.

Contract (a mixin of ``workers.WorkerPool``, which provides ``on_exit``,
``crash_window_s``, ``max_crashes``, ``closing``, ``ready_timeout``,
``template`` and ``slots``):
- ``reap(slot, proc, reason, token)`` (the worker's reader thread, once its
  stdout closes) reaps the process (bounded) and the tool commands it
  started (tagged with ``token``), marks the slot exited (a crash counts
  towards its back-off unless we stopped it), fails a start still waiting
  for it with ``worker_unavailable``, and calls ``on_exit(slot, note)``.
- ``stop(slot)`` is graceful with bounded waits: ``worker/shutdown`` request,
  then close stdin, SIGTERM, SIGKILL (all of its process group). A worker
  that has not taken the shutdown request off its pipe within ``UNREAD_S``
  (what waits for it is not shrinking: it reads nothing), or whose process
  is stopped, would not answer it either, so it gets SIGTERM at once
  instead. It holds the slot's lock, so a start waits for it, and a start
  in progress finishes before the stop; it returns once the exit has been
  handled (bounded by ``EXIT_HANDLED_S``).
- ``close()`` (shutdown): no worker starts any more (``closing``), and every
  worker is stopped, a start in progress included, then the template.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..protocol import workers as pw
from ..transport import stop_child
from ..transport.log import log
from ..transport.process import ChildProcess, is_stopped, kill_tagged
from ..wire import ErrorType, RpcError
from .slot import WorkerSlot
from .template import WorkerTemplate

# How long a start, or a stop, waits for a process's exit to be handled.
EXIT_HANDLED_S = 15.0
# How long a stopping worker gets to take the shutdown request off its pipe.
UNREAD_S = 1.0

ExitSink = Callable[[WorkerSlot, pw.WorkerExitedNotification], None]


class WorkerStops:
    on_exit: ExitSink
    crash_window_s: float
    max_crashes: int
    closing: bool
    ready_timeout: float
    template: WorkerTemplate | None
    slots: Callable[[], list[WorkerSlot]]

    def reap(self, slot: WorkerSlot, proc: ChildProcess, reason: str, token: str = "") -> None:
        code = stop_child(proc, grace_s=2.0, after_stdin_s=1.0, after_term_s=2.0)
        if token:  # tool commands it started live in sessions of their own: end them too
            kill_tagged(token)
        expected = slot.stopping
        why: pw.ExitReason = slot.stop_reason if expected else "crashed"
        if slot.proc is proc:
            slot.proc, slot.peer = None, None
            slot.state = "exited"
            if not expected:
                slot.crashed(self.crash_window_s, self.max_crashes)
        if not slot.ready.is_set():
            slot.start_error = slot.start_error or RpcError(
                ErrorType.WORKER_UNAVAILABLE, f"worker exited during start ({reason})"
            )
            slot.ready.set()
        note = slot.exit_note(proc.pid, code, expected, why)
        log(
            f"hermes-stdio: worker {slot.label} pid {proc.pid} exited "
            f"(code={code}, {'expected' if expected else 'unexpected'}: {reason})"
        )
        self.on_exit(slot, note)

    def stop(
        self,
        slot: WorkerSlot,
        *,
        reason: pw.StopReason = "shutdown",
        shutdown_timeout: float = 5.0,
    ) -> None:
        with slot.lock:
            self._stop(slot, reason, shutdown_timeout)

    def _stop(self, slot: WorkerSlot, reason: pw.StopReason, shutdown_timeout: float) -> None:
        proc, peer = slot.proc, slot.peer
        if proc is None:
            return
        slot.stop_reason = reason
        slot.stopping = True
        slot.state = "stopping"
        reading = True
        if peer is not None:
            peer.close_error = RpcError(
                ErrorType.WORKER_UNAVAILABLE, f"worker {slot.label!r} was stopped"
            )
            answered = threading.Event()
            stopped = is_stopped(proc.pid)
            peer.request("worker/shutdown", {}, lambda _r: answered.set(), timeout=shutdown_timeout)
            reading = not stopped and peer.writer.wait_idle(UNREAD_S)
            if reading:
                answered.wait(shutdown_timeout + 1.0)
            else:
                why = "it is stopped" if stopped else f"{peer.backlog} bytes wait for it"
                log(
                    f"hermes-stdio: worker {slot.label} pid {proc.pid} reads nothing "
                    f"({why}): stopping it without waiting"
                )
        stop_child(
            proc,
            grace_s=3.0 if reading else 0.0,
            after_stdin_s=2.0 if reading else 0.0,
            after_term_s=3.0,
            close_stdin=peer.close_write if peer is not None else None,
        )
        if peer is not None:
            peer.join(10.0)  # its reader reaps the process and reports the exit
        slot.exit_handled.wait(EXIT_HANDLED_S)

    def close(self) -> None:
        """Shut down: no start from now on; stop every worker (bounded)."""
        self.closing = True
        threads = [threading.Thread(target=self.stop, args=(s,), daemon=True) for s in self.slots()]
        for t in threads:
            t.start()
        # A stop may first wait for a start in progress (ready_timeout), then stops.
        deadline = time.monotonic() + self.ready_timeout + 30.0
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if self.template is not None:  # after the workers: they may be its children
            self.template.stop()
