"""Stopping workers nobody has used for a while, without polling, and bounding how
many run at once.

Contract: ``IdleWorkers(pool, routes, idle_s, max_workers=N)``. ``arm()`` (called whenever a
worker becomes ready) keeps one timer set for the earliest moment a running
worker could have been unused for ``idle_s``. When it fires, each ready worker
with no run in progress and no request in flight (``Peer.in_flight``: a
``shell/exec`` may run for minutes) whose last use (a request routed to it, the end of one
of its runs: ``WorkerSlot.last_used_at``) is at least ``idle_s`` old is stopped
gracefully on a thread of its own, re-checked under the slot's locks so that a
request handed to it or starting it meanwhile wins (a request after the
decision waits for the stop, then starts a new worker); ``worker/exited``
(expected) then tells the host, and the next request for the profile starts a
new worker whose sessions resume from the database. A keyed worker stopped so
(as idle, or to make room, below) with no session routed to it is then
forgotten (``WorkerPool.forget``), under the slot's lock the stop holds. The
timer is set again for
the workers left; with none running it stays unset, so an idle supervisor wakes
at most once per ``idle_s``. ``idle_s`` <= 0 turns all of this off. Before the
stop, ``background(slot)`` (default ``asks_background``: ``worker/background``,
bounded by ``ASK_S``) says whether the worker's background work goes on (a
process the agent started, a subagent): then it is kept, as if used now, since
stopping it would kill that work; a worker that does not answer is stopped.

``make_room(slot)`` is called (by the pool, under ``slot.lock``) before a
worker starts for ``slot``: when ``max_workers`` others are starting or ready,
the least recently used ready one with no run in progress, no request in
flight (``Peer.in_flight``) and no background work (``background(slot)``,
asked of each candidate in turn) is stopped first, just as an idle stop is
(``worker/exited`` with reason ``limit``; its sessions stay routed to it and
resume from the database); if none is free, the start fails with
``worker_limit``. Decisions are taken one at a time, and a
worker whose lock another thread holds is passed over rather than waited for,
so two starts never wait on each other. ``max_workers`` <= 0 means no limit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..transport.log import log
from ..transport.timers import TIMERS, Soonest, Timers
from ..wire import ErrorType, Response, RpcError
from .routes import Routes, SlotKey
from .slot import WorkerSlot, now_ms
from .workers import WorkerPool

ASK_S = 5.0


def asks_background(slot: WorkerSlot) -> bool:
    """Whether the worker says background work goes on in any of its sessions."""
    peer = slot.peer
    if peer is None:
        return False
    answered = threading.Event()
    got: list[Response] = []

    def on_answer(response: Response) -> None:
        got.append(response)
        answered.set()

    # records=False: once answered, the ask is not a request in flight that would
    # keep the limit from stopping this worker.
    peer.request("worker/background", {}, on_answer, timeout=ASK_S, records=False)
    if not answered.wait(ASK_S + 1.0) or got[0].error is not None:
        return False
    sessions = got[0].result.get("sessions") if isinstance(got[0].result, dict) else None
    if sessions:
        log(f"hermes-stdio: keeping worker {slot.label}: background work goes on in {sessions}")
    return bool(sessions)


class IdleWorkers:
    def __init__(
        self,
        pool: WorkerPool,
        routes: Routes,
        idle_s: float,
        timers: Timers = TIMERS,
        *,
        max_workers: int = 0,
        background: Callable[[WorkerSlot], bool] = asks_background,
    ) -> None:
        self.pool, self.routes, self.idle_s = pool, routes, idle_s
        self._background = background
        self.max_workers = max_workers
        self._timer = Soonest(self._fire, timers)
        self._stopping: set[WorkerSlot] = set()  # being stopped by us right now
        self._room = threading.Lock()  # one limit decision at a time
        self._admitted: set[WorkerSlot] = set()  # let start, under _room
        self.stopped = 0

    def arm(self) -> None:
        if self.idle_s <= 0:
            return
        due = self._next_due()
        if due is not None:
            self._timer.at((due - now_ms()) / 1000)

    def _next_due(self) -> int | None:
        idle_ms = int(self.idle_s * 1000)
        dues = [
            max(slot.last_used_at, now_ms() if self._busy(slot) else 0) + idle_ms
            for slot in self.pool.slots()
            if slot.state == "ready" and slot not in self._stopping
        ]
        return min(dues) if dues else None

    def _in_use(self, key: SlotKey) -> bool:
        # A session routed to it (or a run in progress) would bring its worker back.
        return self.routes.counts(key) != (0, 0)

    def _busy(self, slot: WorkerSlot) -> bool:
        # A run in progress, or a request not answered yet: a shell/exec may run for minutes.
        peer = slot.peer
        return self.routes.counts(slot.key)[1] > 0 or (peer is not None and peer.in_flight > 0)

    def _idle(self, slot: WorkerSlot) -> bool:
        return (
            slot.state == "ready"
            and not self._busy(slot)
            and now_ms() - slot.last_used_at >= int(self.idle_s * 1000)
        )

    def _fire(self) -> None:
        for slot in self.pool.slots():
            if self._idle(slot) and slot not in self._stopping:
                self._stopping.add(slot)
                threading.Thread(
                    target=self._stop, args=(slot,), name="idle-stop", daemon=True
                ).start()
        self.arm()

    def _stop(self, slot: WorkerSlot) -> None:
        try:
            if self._background(slot):  # asked without the locks: a request may come
                with slot.use_lock:
                    slot.last_used_at = max(slot.last_used_at, now_ms())
                return
            with slot.lock:  # a start for this slot waits for us, then starts afresh
                with slot.use_lock:  # a request now either was a use or finds it stopping
                    if not self._idle(slot):
                        return
                    slot.state = "stopping"
                log(f"hermes-stdio: stopping worker {slot.label}: unused for {self.idle_s:g} s")
                self.pool.stop(slot, reason="idle")
                self.stopped += 1
                self.pool.forget(slot, self._in_use)
        finally:
            self._stopping.discard(slot)
            self.arm()  # a request that won the race left a worker to watch

    # --- the limit ---------------------------------------------------------

    def make_room(self, starting: WorkerSlot) -> None:
        if self.max_workers <= 0:
            return
        with self._room:
            others = [s for s in self.pool.slots() if s is not starting]
            live = self._live(others)
            if live >= self.max_workers and not any(
                self._free(s)
                and s not in self._stopping
                and not self._background(s)  # stopping it would kill that work
                and self._evict(s)
                for s in sorted(others, key=lambda s: s.last_used_at)
            ):
                raise RpcError(
                    ErrorType.WORKER_LIMIT,
                    f"{live} workers are running (--max-workers {self.max_workers}) and each"
                    " has a run in progress, a request pending or background work going on;"
                    " try again when one is free",
                    limit=self.max_workers,
                )
            self._admitted.add(starting)

    def _live(self, others: list[WorkerSlot]) -> int:
        # A slot routing marked "starting" has no process until its start runs: it
        # counts once admitted here, so two starts racing for the last place never
        # both take it, and a start that failed (no longer "starting") stops counting.
        self._admitted = {s for s in self._admitted if s.state == "starting"}
        return sum(
            1
            for s in others
            if s.state == "ready"
            or (s.state == "starting" and (s.proc is not None or s in self._admitted))
        )

    def _free(self, slot: WorkerSlot) -> bool:
        peer = slot.peer
        return (
            slot.state == "ready" and not self._busy(slot) and (peer is None or peer.in_flight == 0)
        )

    def _evict(self, slot: WorkerSlot) -> bool:
        # Never wait on another slot's lock: its holder may be waiting for _room.
        if not slot.lock.acquire(blocking=False):
            return False
        try:
            with slot.use_lock:
                if not self._free(slot):
                    return False
                slot.state = "stopping"
            log(
                f"hermes-stdio: stopping worker {slot.label}: least recently used,"
                f" to stay within --max-workers {self.max_workers}"
            )
            self.pool.stop(slot, reason="limit")
            self.stopped += 1
            self.pool.forget(slot, self._in_use)
            return True
        finally:
            slot.lock.release()
