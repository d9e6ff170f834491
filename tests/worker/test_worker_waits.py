"""HostWaits: a run's thread blocks on one host request until it is answered, times
out, or the run is interrupted; only the owning session may answer, and only once."""

from __future__ import annotations

import threading

from hermes_stdio.worker.state import Run
from hermes_stdio.worker.waits import HostWaits

WAIT = 10.0


def a_run() -> Run:
    return Run("run_1", "sess_1", lambda body: True)


def test_the_owning_sessions_answer_ends_the_wait_once() -> None:
    waits: HostWaits[str] = HostWaits("x")
    ident = waits.open("sess_1")
    assert ident.startswith("x_")
    assert waits.answer("sess_other", ident, "no") is False
    assert waits.answer("sess_1", ident, "yes") is True
    assert waits.answer("sess_1", ident, "again") is False
    assert waits.wait(ident, a_run(), WAIT) == ("answered", "yes")
    assert waits.answer("sess_1", ident, "late") is False  # no longer pending


def test_no_answer_times_out_and_an_interrupt_cancels() -> None:
    waits: HostWaits[str] = HostWaits("x")
    assert waits.wait(waits.open("sess_1"), a_run(), 0.01) == ("timed_out", None)
    run, ident = a_run(), waits.open("sess_1")
    result: list[object] = []
    waiter = threading.Thread(target=lambda: result.append(waits.wait(ident, run, WAIT)))
    waiter.start()
    run.request_interrupt(None)
    waiter.join(WAIT)
    assert result == [("cancelled", None)]


def test_a_run_that_ends_cancels_its_waiting_request() -> None:
    waits: HostWaits[str] = HostWaits("x")
    run, ident = a_run(), waits.open("sess_1")
    result: list[object] = []
    waiter = threading.Thread(target=lambda: result.append(waits.wait(ident, run, 3600)))
    waiter.start()
    run.complete("error")
    waiter.join(WAIT)
    assert result == [("cancelled", None)]


def test_a_run_wakes_a_watcher_once_stopped_and_at_once_if_it_already_is() -> None:
    run, watched, forgotten = a_run(), threading.Event(), threading.Event()
    run.wake_on_stop(watched)
    run.wake_on_stop(forgotten)()  # stops watching
    run.request_interrupt("stop")
    assert watched.is_set() and not forgotten.is_set()
    late = threading.Event()
    run.wake_on_stop(late)
    assert late.is_set()
