"""Batch: requests that arrive while an answer is being computed share the next one."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_stdio.supervisor import batch as batch_module
from hermes_stdio.supervisor.batch import Batch
from hermes_stdio.wire import Request

WAIT = 10.0


class Recorder:
    """A compute that can be held, and the answers it gave."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.hold = threading.Event()
        self.hold.set()
        self.runs = 0
        self.seen_at_start: list[int] = []  # requests added when each run began
        self.added = 0
        self.answers: list[tuple[list[Any], Any, Exception | None]] = []
        self.fail = False

    def compute(self) -> int:
        with self.cond:
            self.runs += 1
            self.seen_at_start.append(self.added)
            self.cond.notify_all()
        assert self.hold.wait(WAIT)
        if self.fail:
            raise RuntimeError("listing failed")
        return self.runs

    def answer(self, group: list[Request], result: Any, error: Exception | None) -> None:
        with self.cond:
            self.answers.append(([r.id for r in group], result, error))
            self.cond.notify_all()

    def add(self, b: Batch, n: int) -> None:
        with self.cond:
            self.added += 1
        b.add(Request(n, "profile/list", {}))

    def wait(self, pred: Any) -> None:
        with self.cond:
            assert self.cond.wait_for(pred, WAIT), (self.runs, self.answers)


def test_requests_that_arrive_during_a_run_share_the_next_one_which_starts_after_them() -> None:
    rec = Recorder()
    b = Batch(rec.compute, rec.answer)
    rec.hold.clear()
    rec.add(b, 0)
    rec.wait(lambda: rec.runs == 1)
    for n in range(1, 6):
        rec.add(b, n)
    rec.hold.set()
    rec.wait(lambda: len(rec.answers) == 2)
    assert rec.answers == [([0], 1, None), ([1, 2, 3, 4, 5], 2, None)]
    assert rec.seen_at_start == [1, 6]  # the second run began after all six arrived
    rec.add(b, 6)  # idle again: a new request gets a run of its own
    rec.wait(lambda: len(rec.answers) == 3)
    assert rec.answers[2] == ([6], 3, None)


def test_a_compute_that_raises_answers_its_group_with_the_error_and_the_next_run_works() -> None:
    rec = Recorder()
    b = Batch(rec.compute, rec.answer)
    rec.fail = True
    rec.add(b, 0)
    rec.wait(lambda: len(rec.answers) == 1)
    [(ids, result, error)] = rec.answers
    assert ids == [0] and result is None and isinstance(error, RuntimeError)
    rec.fail = False
    rec.add(b, 1)
    rec.wait(lambda: len(rec.answers) == 2)
    assert rec.answers[1] == ([1], 2, None)


def test_when_no_thread_can_start_the_caller_gets_the_error_and_a_later_request_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec = Recorder()
    b = Batch(rec.compute, rec.answer)

    def no_thread(fn: Any) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(batch_module, "spawn_thread", no_thread)
    with pytest.raises(RuntimeError):
        rec.add(b, 0)
    assert rec.answers == [] and rec.runs == 0  # its caller answers it
    monkeypatch.undo()
    rec.add(b, 1)
    rec.wait(lambda: len(rec.answers) == 1)
    assert rec.answers == [([1], 1, None)]
