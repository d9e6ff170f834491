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


class Holds:
    """Jobs that record their start and each hold until their own release."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cond = threading.Condition()
        self.releases: dict[str, threading.Event] = {}

    def job(self, name: str):
        release = self.releases[name] = threading.Event()

        def run() -> None:
            with self.cond:
                self.started.append(name)
                self.cond.notify_all()
            assert release.wait(WAIT)

        return run

    def wait_started(self, *names: str) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: set(names) <= set(self.started), WAIT), self.started


def test_slow_jobs_leave_one_thread_so_a_quick_job_never_waits_behind_them() -> None:
    jobs, h = JobQueue(size=3, name="t6"), Holds()
    for name in ("slow1", "slow2", "slow3"):
        jobs.submit(name, h.job(name), slow=True)
    h.wait_started("slow1", "slow2")
    jobs.submit("quick", h.job("quick"))
    h.wait_started("quick")
    assert h.started[:2] == ["slow1", "slow2"] and h.started[2] == "quick"
    assert jobs.slow_running == 2 and jobs.waiting == 1  # slow3 waits for a slow one to end
    h.releases["quick"].set()
    h.releases["slow1"].set()
    h.wait_started("slow3")
    for release in h.releases.values():
        release.set()


def test_a_waiting_slow_job_starts_when_a_slow_one_ends_and_each_kind_keeps_its_order() -> None:
    jobs, h = JobQueue(size=2, name="t7"), Holds()
    jobs.submit("s1", h.job("s1"), slow=True)
    h.wait_started("s1")
    jobs.submit("s2", h.job("s2"), slow=True)
    jobs.submit("s3", h.job("s3"), slow=True)
    jobs.submit("q1", h.job("q1"))
    h.wait_started("q1")
    jobs.submit("q2", h.job("q2"))
    h.releases["q1"].set()
    h.wait_started("q2")  # the quick thread takes the next quick job, not s2
    assert h.started == ["s1", "q1", "q2"]
    h.releases["q2"].set()
    h.releases["s1"].set()
    h.wait_started("s2")
    h.releases["s2"].set()
    h.wait_started("s3")
    assert h.started == ["s1", "q1", "q2", "s2", "s3"]
    h.releases["s3"].set()


def test_jobs_of_both_kinds_start_oldest_first_while_slow_ones_have_room() -> None:
    jobs, b = JobQueue(size=1, name="t8"), Blocker()
    jobs.submit(0, b.job(0))
    b.wait_started(1)
    jobs.submit(1, b.job(1), slow=True)
    jobs.submit(2, b.job(2))
    jobs.submit(3, b.job(3), slow=True)
    b.release.set()
    b.wait_started(4)
    assert b.started == [0, 1, 2, 3]


def test_a_waiting_slow_job_can_be_cancelled() -> None:
    jobs, b = JobQueue(size=2, name="t9"), Blocker()
    cancelled: list[str] = []
    jobs.submit("a", b.job(1), slow=True)
    jobs.submit("b", b.job(2), lambda: cancelled.append("b"), slow=True)
    b.wait_started(1)
    assert jobs.cancel("b") is True and cancelled == ["b"]
    assert jobs.waiting == 0
    b.release.set()
