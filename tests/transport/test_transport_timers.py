"""Timers: call_later runs callbacks in deadline order on one thread; cancel prevents them."""

from __future__ import annotations

import queue
import threading

from hermes_stdio.transport import TIMERS, TimerHandle
from hermes_stdio.transport.timers import PURGE_MIN, SLACK_S, Soonest, Timers

WAIT = 10.0


def test_a_scheduled_callback_runs_on_the_timer_thread():
    timers = Timers()
    ran: queue.Queue[str] = queue.Queue()
    handle = timers.call_later(0.01, lambda: ran.put(threading.current_thread().name))
    assert isinstance(handle, TimerHandle)
    assert ran.get(timeout=WAIT) == "timers"


def test_callbacks_run_in_deadline_order_not_scheduling_order():
    timers = Timers()
    order: queue.Queue[int] = queue.Queue()
    for delay, tag in [(0.15, 3), (0.05, 1), (0.1, 2), (0.0, 0)]:
        timers.call_later(delay, lambda tag=tag: order.put(tag))
    assert [order.get(timeout=WAIT) for _ in range(4)] == [0, 1, 2, 3]


def test_a_cancelled_callback_never_runs():
    timers = Timers()
    fired: list[str] = []
    later = threading.Event()
    handle = timers.call_later(0.02, lambda: fired.append("cancelled one"))
    timers.call_later(0.05, later.set)
    handle.cancel()
    assert handle.cancelled
    assert later.wait(WAIT)  # deadlines run in order: the cancelled one's time has passed
    assert fired == []


def test_an_earlier_timer_scheduled_while_waiting_on_a_later_one_runs_first():
    timers = Timers()
    order: queue.Queue[str] = queue.Queue()
    timers.call_later(0.3, lambda: order.put("late"))
    timers.call_later(0.01, lambda: order.put("early"))
    assert order.get(timeout=WAIT) == "early"
    assert order.get(timeout=WAIT) == "late"


def test_a_raising_callback_does_not_stop_the_timer_thread(capfd):
    timers = Timers()
    done = threading.Event()

    def boom() -> None:
        raise RuntimeError("timer boom")

    timers.call_later(0.0, boom)
    timers.call_later(0.01, done.set)
    assert done.wait(WAIT)
    assert "timer boom" in capfd.readouterr().err


def test_the_timer_thread_is_started_lazily_and_only_once():
    timers = Timers()
    assert timers._thread is None
    done = threading.Event()
    timers.call_later(0.0, lambda: None)
    first = timers._thread
    timers.call_later(0.0, done.set)
    assert done.wait(WAIT)
    assert timers._thread is first is not None


def test_the_process_wide_timers_run_callbacks():
    done = threading.Event()
    TIMERS.call_later(0.0, done.set)
    assert done.wait(WAIT)


def test_soonest_keeps_one_timer_for_the_earliest_deadline_and_may_be_set_again_when_it_fires():
    fired = threading.Event()
    calls: list[str] = []

    def fn() -> None:
        calls.append("fired")
        fired.set()

    timers = Timers()
    soonest = Soonest(fn, timers)
    soonest.at(60)
    soonest.at(120)  # later: the 60 s timer stays
    soonest.at(0.01)  # sooner: replaces it
    assert fired.wait(10)
    assert calls == ["fired"]
    with timers._cond:  # the replaced and the ignored timers left nothing live behind
        live = [h for _, _, h in timers._heap if not h.cancelled]
    assert live == []
    fired.clear()
    soonest.at(0.01)  # set again after it fired
    assert fired.wait(10)
    assert calls == ["fired", "fired"]


def test_soonest_keeps_its_timer_when_a_new_deadline_is_sooner_only_by_clock_jitter():
    timers = Timers()
    soonest = Soonest(lambda: None, timers)
    soonest.at(60)
    first = soonest._handle
    soonest.at(60 - SLACK_S / 2)  # what re-deriving the same wall-clock deadline gives
    assert soonest._handle is first and first is not None and not first.cancelled
    soonest.at(60 - 2 * SLACK_S)  # really sooner: replaced
    assert soonest._handle is not first and first.cancelled


class _CountingCondition(threading.Condition):
    def __init__(self) -> None:
        super().__init__()
        self.notified = 0
        self.asleep = threading.Event()  # the timer thread waited at least once
        self.for_good = threading.Event()  # it waited with no timeout
        self.long_wait = threading.Event()  # it waited towards a far deadline
        self.waits: list[float | None] = []

    def notify(self, n: int = 1) -> None:
        self.notified += 1
        super().notify(n)

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        self.asleep.set()
        if timeout is None:
            self.for_good.set()
        elif timeout > 30:
            self.long_wait.set()
        return super().wait(timeout)


def _asleep_timers(*, cancelled: bool = False) -> tuple[Timers, _CountingCondition]:
    timers = Timers()
    cond = timers._cond = _CountingCondition()
    first = timers.call_later(60, lambda: None)  # starts the thread, which sleeps towards it
    if cancelled:
        first.cancel()
    assert cond.asleep.wait(WAIT)
    return timers, cond


def test_a_timer_later_than_the_one_the_thread_sleeps_towards_does_not_wake_it():
    timers, cond = _asleep_timers()
    for _ in range(50):  # request timeouts: each later than the one before
        timers.call_later(120, lambda: None)
    assert cond.notified == 0
    fired = threading.Event()
    timers.call_later(0.01, fired.set)  # sooner than everything: wakes the thread
    assert cond.notified == 1
    assert fired.wait(WAIT)


def test_request_timeouts_set_and_cancelled_one_at_a_time_never_wake_the_timer_thread():
    timers, cond = _asleep_timers(cancelled=True)
    for _ in range(1000):  # a host's requests, each answered before the next
        timers.call_later(60, lambda: None).cancel()
        assert timers.size == 0
    assert cond.notified == 0
    fired = threading.Event()
    timers.call_later(0.01, fired.set)
    assert fired.wait(WAIT)


def test_cancelled_timeouts_do_not_pile_up_while_their_deadlines_are_far_away():
    timers = Timers()
    for _ in range(10_000):  # a busy host's requests, each answered at once
        timers.call_later(60, lambda: None).cancel()
    assert timers.size <= 2 * PURGE_MIN + 2
    fired = threading.Event()
    timers.call_later(0.01, fired.set)
    assert fired.wait(WAIT)


def test_a_live_timer_survives_when_cancelled_ones_around_it_are_dropped():
    timers = Timers()
    order: queue.Queue[str] = queue.Queue()
    timers.call_later(0.2, lambda: order.put("kept"))
    for _ in range(5 * PURGE_MIN):
        timers.call_later(0.1, lambda: order.put("cancelled")).cancel()
    timers.call_later(0.3, lambda: order.put("last"))
    assert order.get(timeout=WAIT) == "kept"
    assert order.get(timeout=WAIT) == "last"


def test_cancelling_a_timer_after_it_fired_changes_nothing():
    timers = Timers()
    fired = threading.Event()
    handle = timers.call_later(0.0, fired.set)
    assert fired.wait(WAIT)
    handle.cancel()
    assert handle.cancelled and timers._dead == 0


def test_when_every_timer_is_cancelled_the_heap_is_emptied_at_once():
    timers = Timers()
    # No timer thread: it would drop cancelled entries at the top of the heap itself.
    timers._thread = threading.Thread(target=lambda: None)
    handles = [timers.call_later(60 + i, lambda: None) for i in range(10)]
    for handle in handles[:-1]:
        handle.cancel()
    assert timers.size == 10  # one live timer keeps the rest until a bulk purge
    handles[-1].cancel()
    assert timers.size == 0


LINGER = 0.05


def test_once_timers_stop_being_set_the_thread_sleeps_for_good_within_the_linger():
    timers = Timers(linger_s=LINGER)
    cond = timers._cond = _CountingCondition()
    for _ in range(100):  # a burst of requests, each answered at once
        timers.call_later(60, lambda: None).cancel()
    # It never sleeps towards those 60 s deadlines: it looks again and sleeps for good.
    assert cond.for_good.wait(WAIT)
    assert not cond.long_wait.is_set() and cond.notified == 0
    assert all(t is None or t <= LINGER for t in cond.waits)


def test_a_timeout_cancelled_after_the_linger_wakes_the_thread_then_not_later():
    timers = Timers(linger_s=LINGER)
    cond = timers._cond = _CountingCondition()
    slow = timers.call_later(60, lambda: None)  # a request answered after a while
    assert cond.long_wait.wait(WAIT)  # past the linger it sleeps towards the deadline
    slow.cancel()  # answered: the thread looks again now, not in 60 s
    assert cond.notified == 1
    assert cond.for_good.wait(WAIT)


def test_a_live_deadline_past_the_linger_still_fires():
    timers = Timers(linger_s=LINGER)
    fired = threading.Event()
    timers.call_later(4 * LINGER, fired.set)
    assert fired.wait(WAIT)
