"""IdleWorkers with a fake pool, routes and timers: one timer for the earliest idle
moment, busy and recently used workers kept, and nothing scheduled when switched off."""

from __future__ import annotations

import threading
import time
from typing import Any

from hermes_stdio.supervisor.idle import IdleWorkers
from hermes_stdio.supervisor.workers import WorkerSlot, now_ms
from hermes_stdio.transport.timers import TimerHandle

WAIT = 10.0


class FakeTimers:
    def __init__(self) -> None:
        self.set: list[tuple[float, Any]] = []

    def call_later(self, delay: float, fn: Any) -> TimerHandle:
        self.set.append((delay, fn))
        return TimerHandle(time.monotonic() + delay, fn)


class FakePool:
    def __init__(self, *slots: WorkerSlot) -> None:
        self._slots = list(slots)
        self.stopped: list[str] = []
        self.done = threading.Event()

    def slots(self) -> list[WorkerSlot]:
        return list(self._slots)

    def stop(self, slot: WorkerSlot) -> None:
        slot.state = "exited"
        self.stopped.append(slot.profile)
        self.done.set()


class FakeRoutes:
    def __init__(self) -> None:
        self.running: dict[Any, int] = {}

    def counts(self, key: Any) -> tuple[int, int]:
        return 0, self.running.get(key, 0)


def ready(profile: str, unused_s: float) -> WorkerSlot:
    slot = WorkerSlot(profile, None)
    slot.state = "ready"
    slot.last_used_at = now_ms() - int(unused_s * 1000)
    return slot


def test_one_timer_is_set_for_the_earliest_idle_moment_and_only_idle_workers_stop() -> None:
    old, fresh, busy = ready("old", 100), ready("fresh", 1), ready("busy", 100)
    pool, routes, timers = FakePool(old, fresh, busy), FakeRoutes(), FakeTimers()
    routes.running[busy.key] = 1
    idle = IdleWorkers(pool, routes, 60, timers)  # type: ignore[arg-type]
    idle.arm()
    idle.arm()  # a second arm keeps the sooner timer
    assert len(timers.set) == 1 and timers.set[0][0] == 0.0  # "old" is already idle
    timers.set[0][1]()  # fire
    assert pool.done.wait(WAIT)
    assert pool.stopped == ["old"]
    # Re-armed for the rest: "fresh" about 59 s from now, once, whether the stop
    # thread or the firing re-arms first (the later one finds it set).
    assert len(timers.set) == 2 and 55 < timers.set[1][0] <= 60


def test_switched_off_or_with_no_ready_worker_nothing_is_scheduled() -> None:
    timers = FakeTimers()
    IdleWorkers(FakePool(ready("a", 999)), FakeRoutes(), 0, timers).arm()  # type: ignore[arg-type]
    stopped_slot = ready("b", 999)
    stopped_slot.state = "exited"
    IdleWorkers(FakePool(stopped_slot), FakeRoutes(), 60, timers).arm()  # type: ignore[arg-type]
    assert timers.set == []


def test_a_request_handed_to_the_worker_while_the_stop_decides_keeps_it_running() -> None:
    slot = ready("raced", 100)
    pool, timers = FakePool(slot), FakeTimers()
    idle = IdleWorkers(pool, FakeRoutes(), 60, timers)  # type: ignore[arg-type]
    with slot.use_lock:  # a request is being handed over (routing's fast path)
        idle.arm()
        timers.set[0][1]()  # the stop thread starts and must wait for the hand-over
        slot.last_used_at = now_ms()
    for thread in [t for t in threading.enumerate() if t.name == "idle-stop"]:
        thread.join(WAIT)
    assert pool.stopped == [] and slot.state == "ready"
