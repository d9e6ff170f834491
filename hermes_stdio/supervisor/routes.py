"""Routing tables: which worker holds a session, which worker runs a run.

Contract: thread-safe. A run's route lives while it runs (with the approval and
clarify requests it waits on) and, once finished,
among the last ``keep_finished`` finished runs (so ``run/result`` can still be
routed); a session stays routed to its slot until it is destroyed, whatever
becomes of the slot's worker (the next one resumes it from the database), and
a worker's exit returns its unfinished runs. A deleted profile's sessions are
retired (``retire_profile``): no longer routed, but ``retired(session_id)``
names the profile they were in until a request routes the id anew.
The supervisor holds only these routes and worker health; sessions and runs
themselves live in the workers. ``counts(slot)`` (sessions routed to a worker,
its runs in progress) costs the same however many routes there are: it is
asked on every ``supervisor/status`` and every worker-limit decision.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from typing import Any

SlotKey = tuple[str, str | None]


class RunRoute:
    __slots__ = ("done", "final", "last_seq", "run_id", "session_id", "slot", "waiting")

    def __init__(self, run_id: str, session_id: str, slot: SlotKey) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.slot = slot
        self.last_seq = 0
        self.done = False
        # Set when the supervisor itself ended the run (its worker died): run/result answers it.
        self.final: dict[str, Any] | None = None
        # Host answers the run waits for, e.g. ("approval", "appr_…"), in request order.
        self.waiting: dict[tuple[str, str], None] = {}


class Routes:
    def __init__(self, keep_finished: int = 1024) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, SlotKey] = {}
        self._retired: dict[str, str] = {}  # a deleted profile's session -> its name
        self._runs: dict[str, RunRoute] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._keep = keep_finished
        # Per slot, kept with every change to _sessions and to a run's done.
        self._session_count: Counter[SlotKey] = Counter()
        self._running_count: Counter[SlotKey] = Counter()

    def _route_session(self, session_id: str, slot: SlotKey) -> None:
        self._retired.pop(session_id, None)
        old = self._sessions.get(session_id)
        if old != slot:
            if old is not None:
                self._uncount(self._session_count, old)
            self._sessions[session_id] = slot
            self._session_count[slot] += 1

    def _unroute_session(self, session_id: str) -> None:
        old = self._sessions.pop(session_id, None)
        if old is not None:
            self._uncount(self._session_count, old)

    @staticmethod
    def _uncount(counter: Counter[SlotKey], slot: SlotKey) -> None:
        counter[slot] -= 1
        if counter[slot] <= 0:
            del counter[slot]

    def session(self, session_id: str) -> SlotKey | None:
        with self._lock:
            return self._sessions.get(session_id)

    def add_session(self, session_id: str, slot: SlotKey) -> None:
        with self._lock:
            self._route_session(session_id, slot)

    def claim_session(self, session_id: str, slot: SlotKey) -> tuple[SlotKey, bool]:
        """The session's route; one it has none of becomes ``slot``'s (True: claimed now)."""
        with self._lock:
            owner = self._sessions.get(session_id)
            if owner is not None:
                return owner, False
            self._route_session(session_id, slot)
            return slot, True

    def release_session(self, session_id: str, slot: SlotKey) -> None:
        """Undo a claim whose request failed, unless a run there has made the session real."""
        with self._lock:
            ran = any(r.session_id == session_id and r.slot == slot for r in self._runs.values())
            if self._sessions.get(session_id) == slot and not ran:
                self._unroute_session(session_id)

    def drop_session(self, session_id: str) -> None:
        """Forget a destroyed session's route, unless a run of it is live there (one
        started after the destroy: the session is in use again)."""
        with self._lock:
            live = any(r.session_id == session_id and not r.done for r in self._runs.values())
            if not live:
                self._unroute_session(session_id)

    def run(self, run_id: str) -> RunRoute | None:
        with self._lock:
            return self._runs.get(run_id)

    def add_run(self, run_id: str, session_id: str, slot: SlotKey) -> None:
        with self._lock:
            self._route_session(session_id, slot)
            if run_id not in self._runs:
                self._runs[run_id] = RunRoute(run_id, session_id, slot)
                self._running_count[slot] += 1

    def note_seq(self, run_id: str, seq: int, completed: bool) -> RunRoute | None:
        with self._lock:
            route = self._runs.get(run_id)
            if route is None or route.done:
                return None
            route.last_seq = max(route.last_seq, seq)
            if completed:
                self._finish_locked(route)
            return route

    def note_waiting(self, run_id: str, what: tuple[str, str], waiting: bool) -> None:
        with self._lock:
            route = self._runs.get(run_id)
            if route is None:
                return
            if waiting:
                route.waiting[what] = None
            else:
                route.waiting.pop(what, None)

    def finish(self, route: RunRoute, final: dict[str, Any] | None = None) -> None:
        with self._lock:
            route.final = final
            self._finish_locked(route)

    def _finish_locked(self, route: RunRoute) -> None:
        if not route.done and self._runs.get(route.run_id) is route:
            self._uncount(self._running_count, route.slot)
        route.done = True
        self._finished[route.run_id] = None
        while len(self._finished) > self._keep:
            old, _ = self._finished.popitem(last=False)
            self._runs.pop(old, None)

    def unfinished(self, slot: SlotKey) -> list[RunRoute]:
        """A dead worker's runs that never completed. Its sessions stay routed to the
        slot: a request naming one alone must reach this profile's database again."""
        with self._lock:
            return [r for r in self._runs.values() if r.slot == slot and not r.done]

    def counts(self, slot: SlotKey) -> tuple[int, int]:
        with self._lock:
            return self._session_count[slot], self._running_count[slot]

    def retire_profile(self, name: str) -> None:
        """Unroute every session of ``name``'s workers, remembering where they were
        (profile/delete): a profile made later under that name has none of them."""
        with self._lock:
            for session_id, slot in list(self._sessions.items()):
                if slot[0] == name:
                    self._unroute_session(session_id)
                    self._retired[session_id] = name

    def retired(self, session_id: str) -> str | None:
        """The deleted profile a session unrouted since was in."""
        with self._lock:
            return self._retired.get(session_id)

    def rename_profile(self, old: str, new: str) -> None:
        """Point every route to one of ``old``'s workers at ``new``'s: its sessions
        and finished runs moved with its directory (profile/rename)."""
        with self._lock:
            for session_id, slot in list(self._sessions.items()):
                if slot[0] == old:
                    self._route_session(session_id, (new, slot[1]))
            for route in self._runs.values():
                if route.slot[0] == old:
                    if not route.done:
                        self._uncount(self._running_count, route.slot)
                        self._running_count[(new, route.slot[1])] += 1
                    route.slot = (new, route.slot[1])
