"""IdleWorkers with a fake pool, routes and timers: one timer for the earliest idle
moment, busy and recently used workers kept, and nothing scheduled when switched off;
at the worker limit the least recently used free worker makes room, or the start fails."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from hermes_stdio.supervisor.idle import IdleWorkers, asks_background
from hermes_stdio.supervisor.slot import WorkerSlot, now_ms
from hermes_stdio.transport.timers import TimerHandle
from hermes_stdio.wire import ErrorType, RpcError

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
        self.reasons: list[str] = []
        self.forgotten: list[tuple[str, bool]] = []  # forget() asked: (profile, in use)
        self.done = threading.Event()

    def slots(self) -> list[WorkerSlot]:
        return list(self._slots)

    def stop(self, slot: WorkerSlot, *, reason: str) -> None:
        slot.state = "exited"
        self.stopped.append(slot.profile)
        self.reasons.append(reason)

    def forget(self, slot: WorkerSlot, in_use: Any) -> bool:
        self.forgotten.append((slot.profile, in_use(slot.key)))
        self.done.set()  # the last step of a stop
        return False


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
    assert pool.stopped == ["old"] and pool.reasons == ["idle"]
    assert pool.forgotten == [("old", False)]  # then offered to be forgotten, unused
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


def test_a_worker_whose_background_work_goes_on_is_kept_and_looked_at_again_later() -> None:
    slot = ready("working", 100)
    pool, timers = FakePool(slot), FakeTimers()
    asked: list[WorkerSlot] = []
    answered = threading.Event()

    def background(asked_slot: WorkerSlot) -> bool:
        asked.append(asked_slot)
        answered.set()
        return True

    idle = IdleWorkers(pool, FakeRoutes(), 60, timers, background=background)  # type: ignore[arg-type]
    idle.arm()
    timers.set[0][1]()
    assert answered.wait(WAIT)
    for thread in [t for t in threading.enumerate() if t.name == "idle-stop"]:
        thread.join(WAIT)
    assert asked == [slot] and pool.stopped == [] and slot.state == "ready"
    assert now_ms() - slot.last_used_at < 5_000  # idle again from now on
    assert 55 < timers.set[-1][0] <= 60  # the next look: a whole timeout later


def test_a_worker_without_a_peer_has_no_background_work_to_keep_it() -> None:
    assert asks_background(ready("no-peer", 100)) is False


def limited(
    max_workers: int, *slots: WorkerSlot, background: Any = asks_background
) -> tuple[IdleWorkers, FakePool, FakeRoutes]:
    pool, routes = FakePool(*slots), FakeRoutes()
    idle = IdleWorkers(
        pool,  # type: ignore[arg-type]
        routes,  # type: ignore[arg-type]
        0,
        FakeTimers(),
        max_workers=max_workers,
        background=background,
    )
    return idle, pool, routes


def test_below_the_worker_limit_a_start_stops_nothing() -> None:
    new = WorkerSlot("new", None)
    idle, pool, _ = limited(3, ready("a", 100), ready("b", 10), new)
    idle.make_room(new)
    assert pool.stopped == []


def test_at_the_worker_limit_the_least_recently_used_free_worker_is_stopped_first() -> None:
    oldest_busy, old, recent, new = (
        ready("busy", 500),
        ready("old", 100),
        ready("recent", 10),
        WorkerSlot("new", None),
    )
    idle, pool, routes = limited(3, oldest_busy, old, recent, new)
    routes.running[oldest_busy.key] = 1  # a run in progress is never stopped for room
    idle.make_room(new)
    assert pool.stopped == ["old"] and pool.reasons == ["limit"] and idle.stopped == 1
    assert pool.forgotten == [("old", False)]  # then offered to be forgotten, unused


def test_when_every_worker_is_busy_a_start_fails_with_worker_limit() -> None:
    busy, new = ready("busy", 100), WorkerSlot("new", None)
    idle, pool, routes = limited(1, busy, new)
    routes.running[busy.key] = 1
    with pytest.raises(RpcError) as caught:
        idle.make_room(new)
    assert caught.value.kind is ErrorType.WORKER_LIMIT and caught.value.data == {"limit": 1}
    assert pool.stopped == []
    routes.running[busy.key] = 0  # its run ended: now it makes room
    idle.make_room(new)
    assert pool.stopped == ["busy"]


def test_two_starts_racing_for_the_last_place_never_both_take_it() -> None:
    # Routing marks both "starting" before either start has a process.
    first, second = WorkerSlot("first", None), WorkerSlot("second", None)
    first.state = second.state = "starting"
    idle, _pool, _ = limited(1, first, second)
    idle.make_room(first)
    with pytest.raises(RpcError) as caught:
        idle.make_room(second)
    assert caught.value.kind is ErrorType.WORKER_LIMIT
    first.state = "exited"  # its start failed: the place is free again
    idle.make_room(second)


def test_a_worker_whose_lock_another_thread_holds_is_passed_over_not_waited_for() -> None:
    held, free, new = ready("held", 100), ready("free", 10), WorkerSlot("new", None)
    idle, pool, _ = limited(2, held, free, new)
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with held.lock:
            taken.set()
            release.wait(WAIT)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(WAIT)
        idle.make_room(new)
        assert pool.stopped == ["free"]
    finally:
        release.set()
        holder.join(WAIT)


def test_without_a_limit_starts_never_stop_anything() -> None:
    slots = [ready(f"p{i}", i) for i in range(5)]
    new = WorkerSlot("new", None)
    idle, pool, _ = limited(0, *slots, new)
    idle.make_room(new)
    assert pool.stopped == []


class BusyPeer:
    in_flight = 1  # a request not answered, or whose answer is still being recorded


def test_a_worker_with_a_request_in_flight_is_not_stopped_for_room() -> None:
    asked, idle_one, new = ready("asked", 100), ready("idle", 10), WorkerSlot("new", None)
    asked.peer = BusyPeer()  # type: ignore[assignment]
    idle, pool, _ = limited(2, asked, idle_one, new)
    idle.make_room(new)
    assert pool.stopped == ["idle"]


def test_a_worker_whose_background_work_goes_on_is_not_stopped_for_room() -> None:
    serving, recent, new = ready("serving", 100), ready("recent", 10), WorkerSlot("new", None)
    asked: list[str] = []

    def background(slot: WorkerSlot) -> bool:
        asked.append(slot.profile)
        return slot is serving  # a dev server the agent started still runs

    idle, pool, _ = limited(2, serving, recent, new, background=background)
    idle.make_room(new)
    assert asked == ["serving", "recent"]  # least recently used first
    assert pool.stopped == ["recent"]


def test_when_every_free_worker_has_background_work_a_start_fails_with_worker_limit() -> None:
    serving, new = ready("serving", 100), WorkerSlot("new", None)
    idle, pool, _ = limited(1, serving, new, background=lambda _slot: True)
    with pytest.raises(RpcError) as caught:
        idle.make_room(new)
    assert caught.value.kind is ErrorType.WORKER_LIMIT and caught.value.data == {"limit": 1}
    assert pool.stopped == []


def test_a_worker_still_answering_a_request_is_not_stopped_as_idle() -> None:
    answering, routes, timers = ready("answering", 100), FakeRoutes(), FakeTimers()
    answering.peer = BusyPeer()  # type: ignore[assignment]  # e.g. a long shell/exec
    pool = FakePool(answering)
    idle = IdleWorkers(pool, routes, 60, timers)  # type: ignore[arg-type]
    idle.arm()
    assert len(timers.set) == 1 and timers.set[0][0] > 59  # looked at again later
    timers.set[0][1]()
    assert pool.stopped == [] and answering.state == "ready"
