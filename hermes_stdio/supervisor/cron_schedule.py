"""Firing the profiles' cron jobs as they come due (``initialize``'s
``options.scheduleCron``), and ``cron/tick`` routed to a profile's worker.

hermes' gateway ticks each profile's scheduler once a minute. A desktop host
runs no gateway, so hermes-stdio can do it instead, without a tick a minute:
it sleeps until the soonest ``next_run_at`` of an enabled job in any profile's
``cron/jobs.json``, then sends that profile's worker (started if need be) a
``cron/tick``. The worker decides, through hermes, what is due and claims it
(``worker.cron_fire``), so a gateway ticking the same profile never fires a
job twice.

Contract: ``CronSchedule(profiles, tick)`` (``profiles()``: each profile's
name and home; ``tick(profile)``: must not block). ``enable(on)`` starts
(reading every profile's jobs) or stops it; ``look(profile, home)`` reads
one profile's jobs again (its file changed), ``look_all()`` every profile's
(the list changed). It keeps one timer: for the soonest time a profile's job
is due, but never more than ``MAX_SLEEP_S`` ahead (the clock may jump, or the
machine sleep, while it waits; a file change it was not told of is seen
then). When it fires it reads every profile again and ticks those whose time
has come. A profile ticked whose soonest time has still not moved on (its
job ran long, another holds it, hermes judged it not due) is not ticked again
for ``RETRY_S``, the gateway's cadence. With no job to wait for it sets no
timer. A file that is missing, unreadable or not JSON schedules nothing.

``CronTicks`` (a mixin of ``Supervisor``) routes a host's ``cron/tick``,
learning its runs' routes from the answer (before their ``run/started``), and
ticks for the schedule, where a failure (the profile removed, its worker
failing to start) is logged and retried by the rule above.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..protocol import types as t
from ..transport import Peer
from ..transport.log import log
from ..transport.profile_files import read_regular
from ..transport.timers import TIMERS, Soonest, Timers
from ..wire import Request, Response
from .routes import Routes, SlotKey
from .slot import WorkerSlot
from .workers import WorkerPool

RETRY_S = 60.0
MAX_SLEEP_S = 300.0
MAX_FILE_BYTES = 16 * 1024 * 1024
TICK_TIMEOUT_S = 60.0  # the worker answers once it has claimed: a wedged one is bounded


def soonest_due(jobs_file: Path) -> float | None:
    """The soonest ``next_run_at`` (epoch seconds) of the file's enabled jobs."""
    from datetime import datetime  # ~2 ms: only once the schedule is on, not at start

    raw = read_regular(jobs_file, unless=lambda st: st.st_size > MAX_FILE_BYTES)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except ValueError:
        return None
    jobs = data.get("jobs") if isinstance(data, dict) else data
    times = []
    for job in jobs if isinstance(jobs, list) else []:
        if not isinstance(job, dict) or job.get("enabled", True) is False:
            continue
        when = job.get("next_run_at")
        if job.get("state") == "paused" or not isinstance(when, str):
            continue
        try:
            times.append(datetime.fromisoformat(when).timestamp())  # naive: local time
        except (ValueError, OverflowError, OSError):
            continue
    return min(times, default=None)


class CronSchedule:
    def __init__(
        self,
        profiles: Callable[[], Iterable[tuple[str, Path]]],
        tick: Callable[[str], None],
        *,
        timers: Timers = TIMERS,
        clock: Callable[[], float] = time.time,
        spawn: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        self._profiles, self._tick, self._clock = profiles, tick, clock
        self._spawn = spawn or (lambda fn: fn())
        self._lock = threading.Lock()
        self._on = False
        self._due: dict[str, float] = {}  # profile -> its soonest job's time
        self._ticked: dict[str, float] = {}  # profile -> when it was last ticked
        self._timer = Soonest(lambda: self._spawn(self._fire), timers)

    @property
    def on(self) -> bool:
        return self._on

    def enable(self, on: bool) -> None:
        with self._lock:
            self._on = on
            if not on:
                self._due.clear()
        if on:
            self.look_all()

    def look(self, profile: str, home: Path) -> None:
        if not self._on:
            return  # off: reads nothing
        when = soonest_due(home / "cron" / "jobs.json")
        with self._lock:
            if not self._on:
                return
            if when is None:
                self._due.pop(profile, None)
            else:
                self._due[profile] = when
            self._arm_locked()

    def look_all(self) -> None:
        found = self._read_all()
        with self._lock:
            if self._on:
                self._due = found
                self._arm_locked()

    def _read_all(self) -> dict[str, float]:
        read = {name: soonest_due(home / "cron" / "jobs.json") for name, home in self._profiles()}
        return {name: when for name, when in read.items() if when is not None}

    def _when(self, profile: str) -> float:
        due, last = self._due[profile], self._ticked.get(profile)
        return last + RETRY_S if last is not None and due <= last else due

    def _arm_locked(self) -> None:
        if self._due:
            soonest = min(self._when(p) for p in self._due)
            self._timer.at(min(MAX_SLEEP_S, soonest - self._clock()))

    def _fire(self) -> None:
        found = self._read_all()
        now = self._clock()
        with self._lock:
            if not self._on:
                return
            self._due = found
            ready = [p for p in self._due if self._when(p) <= now]
            for profile in ready:
                self._ticked[profile] = now
            self._arm_locked()
        for profile in ready:
            try:
                self._tick(profile)
            except Exception as exc:  # one profile's failure must not stop the rest
                log(f"hermes-stdio: ticking the cron jobs of {profile!r} failed: {exc!r}")


class CronTicks:
    routes: Routes
    pool: WorkerPool
    _key: Callable[[str | None, str | None], SlotKey]
    _forward: Callable[..., None]
    _start_worker: Callable[
        [WorkerSlot, Callable[[Peer], object], Callable[[Exception], object]], None
    ]

    def _h_cron_tick(self, req: Request, p: t.WorkerTarget) -> None:
        key = self._key(p.profile, p.worker_key)
        self._forward(req, self.pool.slot(*key), lambda result: self._ticked(key, result))

    def _ticked(self, key: SlotKey, result: Any) -> None:
        runs = result.get("runs") if isinstance(result, dict) else None
        for run in runs if isinstance(runs, list) else []:
            if isinstance(run, dict):
                self.routes.add_run(str(run.get("runId")), str(run.get("sessionId")), key)

    def _scheduled_tick(self, profile: str) -> None:
        key = self._key(profile, None)  # a profile being deleted or renamed raises
        slot = self.pool.slot(*key)

        def answered(resp: Response) -> None:
            if resp.error is not None:
                log(f"hermes-stdio: cron/tick of {profile!r} failed: {resp.error}")
            else:
                self._ticked(key, resp.result)

        def send(peer: Peer) -> None:
            peer.request("cron/tick", {"profile": profile}, answered, timeout=TICK_TIMEOUT_S)

        def failed(exc: Exception) -> None:
            log(f"hermes-stdio: no worker to tick the cron jobs of {profile!r}: {exc}")

        with slot.use_lock:  # behind requests waiting for the worker's start, as _forward
            peer = slot.peer
            if slot.state == "ready" and peer is not None and not slot.waiting:
                send(peer)
                return
        self._start_worker(slot, send, failed)
