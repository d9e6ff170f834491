"""JobQueue: bounded threads, first come first served, cancels of what has not started."""

from __future__ import annotations

import threading

import pytest

from hermes_stdio.worker.jobs import JobQueue

WAIT = 10.0


class Blocker:
    """Jobs that record their start and hold until released."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.release = threading.Event()
        self.cond = threading.Condition()

    def job(self, n: int):
        def run() -> None:
            with self.cond:
                self.started.append(n)
                self.cond.notify_all()
            assert self.release.wait(WAIT)

        return run

    def wait_started(self, count: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.started) >= count, WAIT), self.started


def alive(prefix: str) -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith(prefix))


def test_at_most_size_jobs_run_at_once_and_the_rest_start_in_the_order_submitted() -> None:
    jobs, b = JobQueue(size=2, name="t1"), Blocker()
    for n in range(6):
        jobs.submit(n, b.job(n))
    b.wait_started(2)
    assert sorted(b.started) == [0, 1]
    assert jobs.waiting == 4 and jobs.running == 2
    assert alive("t1") == 2
    b.release.set()
    b.wait_started(6)
    assert b.started[2:] == [2, 3, 4, 5]


def test_threads_end_when_nothing_waits_so_an_idle_queue_keeps_none() -> None:
    jobs, done = JobQueue(size=3, name="t2"), threading.Event()
    jobs.submit(1, done.set)
    assert done.wait(WAIT)
    for t in [t for t in threading.enumerate() if t.name.startswith("t2")]:
        t.join(WAIT)
    assert alive("t2") == 0 and jobs.running == 0


def test_cancel_takes_a_waiting_job_out_and_calls_its_on_cancel_but_leaves_a_running_one() -> None:
    jobs, b = JobQueue(size=1, name="t3"), Blocker()
    cancelled: list[str] = []
    jobs.submit("a", b.job(1), lambda: cancelled.append("a"))
    jobs.submit("b", b.job(2), lambda: cancelled.append("b"))
    jobs.submit("c", b.job(3), lambda: cancelled.append("c"))
    b.wait_started(1)
    assert jobs.cancel("a") is False  # running: it runs to its end
    assert jobs.cancel("b") is True
    assert jobs.cancel("b") is False  # once
    assert jobs.cancel("nobody") is False
    assert cancelled == ["b"]
    b.release.set()
    b.wait_started(2)
    assert b.started == [1, 3]


def test_a_job_that_raises_is_logged_and_the_queue_goes_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    jobs, done = JobQueue(size=1, name="t4"), threading.Event()

    def boom() -> None:
        raise RuntimeError("job bug")

    jobs.submit(1, boom, label="broken")
    jobs.submit(2, done.set)
    assert done.wait(WAIT)
    err = capfd.readouterr().err
    assert "worker: t4:broken failed" in err and "RuntimeError: job bug" in err


def test_a_key_already_waiting_or_none_still_queues_its_job() -> None:
    jobs, b = JobQueue(size=1, name="t5"), Blocker()
    jobs.submit(1, b.job(1))
    jobs.submit(1, b.job(2))  # a running job's key may be reused: it is not waiting
    jobs.submit(1, b.job(3))  # waiting under that key already: queued under its own
    jobs.submit(None, b.job(4))
    b.release.set()
    b.wait_started(4)
    assert b.started == [1, 2, 3, 4]


def test_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        JobQueue(size=0)
