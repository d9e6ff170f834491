"""WorkerPool with real worker processes running the synthetic agent."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_stdio.protocol import types
from hermes_stdio.supervisor.workers import WorkerPool, WorkerSlot
from hermes_stdio.transport import Peer
from hermes_stdio.wire import DEFAULT_MAX_BODY_BYTES, ErrorType, RpcError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("hermes_stdio.worker.synthetic") is None,
    reason="hermes_stdio/worker/synthetic.py (the --synthetic-agent worker) does not exist yet",
)

WAIT = 30.0


class ExitLog:
    """Records on_exit calls; wait() is bounded."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.calls: list[tuple[WorkerSlot, types.WorkerExitedNotification]] = []

    def __call__(self, slot: WorkerSlot, note: types.WorkerExitedNotification) -> None:
        with self._cond:
            self.calls.append((slot, note))
            self._cond.notify_all()

    def wait(self, count: int = 1) -> list[types.WorkerExitedNotification]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.calls) >= count, WAIT), self.calls
            return [note for _, note in self.calls]


@pytest.fixture
def exits() -> ExitLog:
    return ExitLog()


@pytest.fixture
def pool(tmp_path: Path, exits: ExitLog) -> Iterator[WorkerPool]:
    home = tmp_path / "home"
    home.mkdir()
    pool = WorkerPool(
        home.resolve(),
        sys.executable,
        dict(os.environ),
        lambda slot, note, body: None,
        exits,
        max_body_bytes=DEFAULT_MAX_BODY_BYTES,
        worker_args=["--synthetic-agent", "--no-preload"],
        ready_timeout=WAIT,
    )
    yield pool
    pool.stop_all()


def test_ensure_ready_starts_a_worker_and_returns_its_peer(pool: WorkerPool) -> None:
    slot = pool.slot("default", None)
    peer = pool.ensure_ready(slot)
    assert isinstance(peer, Peer)
    assert slot.state == "ready"
    assert slot.ready.is_set()
    assert slot.proc is not None and slot.proc.poll() is None
    assert slot.started_at is not None
    assert pool.ensure_ready(slot) is peer  # a ready slot is reused, not restarted


def test_stop_ends_the_worker_and_reports_one_expected_exit(
    pool: WorkerPool, exits: ExitLog
) -> None:
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    proc = slot.proc
    assert proc is not None
    pool.stop(slot)
    [note] = exits.wait()
    assert note.expected is True
    assert note.pid == proc.pid
    assert note.profile == "default" and note.worker_key is None
    assert note.exit_code == 0 and note.signal is None
    assert proc.poll() is not None
    assert slot.proc is None and slot.peer is None
    assert slot.state == "exited"
    assert slot.restarts == 0
    assert len(exits.calls) == 1


def test_a_killed_worker_reports_an_unexpected_sigkill_exit_and_counts_a_restart(
    pool: WorkerPool, exits: ExitLog
) -> None:
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    proc = slot.proc
    assert proc is not None
    os.kill(proc.pid, signal.SIGKILL)
    [note] = exits.wait()
    assert note.expected is False
    assert note.signal == "SIGKILL"
    assert note.exit_code is None
    assert note.pid == proc.pid
    assert slot.restarts == 1
    assert slot.state == "exited"
    assert slot.proc is None and slot.peer is None
    assert proc.poll() is not None


def test_a_killed_worker_can_be_started_again(pool: WorkerPool, exits: ExitLog) -> None:
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    first = slot.proc
    assert first is not None
    os.kill(first.pid, signal.SIGKILL)
    exits.wait()
    pool.ensure_ready(slot)
    assert slot.state == "ready"
    assert slot.proc is not None and slot.proc.pid != first.pid


def test_a_worker_key_starts_a_separate_process(pool: WorkerPool) -> None:
    plain, keyed = pool.slot("default", None), pool.slot("default", "k1")
    pool.ensure_ready(plain)
    pool.ensure_ready(keyed)
    assert plain.proc is not None and keyed.proc is not None
    assert plain.proc.pid != keyed.proc.pid
    assert keyed.state == "ready"


def test_repeated_crashes_put_the_slot_into_backoff_until_reset(
    pool: WorkerPool, exits: ExitLog
) -> None:
    pool.max_crashes = 2
    slot = pool.slot("default", None)
    for n in (1, 2):
        pool.ensure_ready(slot)
        assert slot.proc is not None
        os.kill(slot.proc.pid, signal.SIGKILL)
        exits.wait(n)
    assert slot.state == "backoff"
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(slot)
    assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
    pool.reset_backoff(slot)
    pool.ensure_ready(slot)
    assert slot.state == "ready"
