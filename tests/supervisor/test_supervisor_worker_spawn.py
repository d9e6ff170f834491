"""WorkerPool with real worker processes running the synthetic agent."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import workers as pw
from hermes_stdio.supervisor import workers as workers_mod
from hermes_stdio.supervisor.slot import WorkerSlot
from hermes_stdio.supervisor.template import TemplateUnavailable
from hermes_stdio.supervisor.workers import WorkerPool
from hermes_stdio.transport import Peer
from hermes_stdio.transport.process import WORKER_TAG
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
        self.calls: list[tuple[WorkerSlot, pw.WorkerExitedNotification]] = []

    def __call__(self, slot: WorkerSlot, note: pw.WorkerExitedNotification) -> None:
        with self._cond:
            self.calls.append((slot, note))
            self._cond.notify_all()

    def wait(self, count: int = 1) -> list[pw.WorkerExitedNotification]:
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
    pool.close()


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
    assert note.expected is True and note.reason == "shutdown"
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
    assert note.expected is False and note.reason == "crashed"
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


def test_a_start_after_a_crash_waits_until_the_crashed_workers_exit_was_handled(
    pool: WorkerPool, exits: ExitLog
) -> None:
    # Handling an exit ends that process's runs and forgets its sessions by slot: a new
    # process started before it finished would lose its own runs to the old exit.
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    old = slot.proc
    assert old is not None
    release = threading.Event()
    handling = threading.Event()
    record = pool.on_exit

    def slow_exit(s: WorkerSlot, note: pw.WorkerExitedNotification) -> None:
        handling.set()
        assert release.wait(WAIT)
        record(s, note)

    pool.on_exit = slow_exit
    os.kill(old.pid, signal.SIGKILL)
    assert handling.wait(WAIT)
    started: list[Peer] = []
    starter = threading.Thread(target=lambda: started.append(pool.ensure_ready(slot)))
    starter.start()
    starter.join(1.0)
    assert starter.is_alive() and not started  # it waits for the exit to be handled
    release.set()
    starter.join(WAIT)
    [note] = exits.wait()
    assert note.pid == old.pid and note.signal == "SIGKILL"
    assert started and slot.state == "ready"
    assert slot.proc is not None and slot.proc.pid != old.pid


def test_close_refuses_new_starts_and_stops_a_worker_that_was_still_starting(
    pool: WorkerPool, exits: ExitLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned = threading.Event()
    real_spawn = workers_mod.spawn_child

    def spawn(*args: Any, **kwargs: Any) -> Any:
        proc = real_spawn(*args, **kwargs)
        spawned.set()
        return proc

    monkeypatch.setattr(workers_mod, "spawn_child", spawn)
    slot = pool.slot("default", None)
    outcome: list[object] = []

    def start() -> None:
        try:
            outcome.append(pool.ensure_ready(slot))
        except RpcError as exc:
            outcome.append(exc)

    starter = threading.Thread(target=start)
    starter.start()
    assert spawned.wait(WAIT)
    proc = slot.proc
    assert proc is not None
    pool.close()  # the start in progress finishes first, then its worker is stopped
    starter.join(WAIT)
    assert proc.poll() is not None
    [note] = exits.wait()
    assert note.pid == proc.pid and note.expected is True
    assert len(outcome) == 1
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(pool.slot("work", None))
    assert err.value.kind is ErrorType.SHUTTING_DOWN
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(slot)
    assert err.value.kind is ErrorType.SHUTTING_DOWN


class FailingTemplate:
    """A template whose fork fails after the request went out (it did not answer)."""

    def __init__(self) -> None:
        self.tags: list[str] = []

    def fork(self, options: list[str], env: dict[str, str], cwd: str, argv: list[str]) -> Any:
        self.tags.append(env[WORKER_TAG])
        raise TemplateUnavailable("the template did not answer")


def test_a_worker_spawned_after_a_failed_fork_gets_a_tag_of_its_own(
    pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fork the template still carries out late ends by killing its tag's processes.
    template = FailingTemplate()
    monkeypatch.setattr(pool, "template", template)
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    assert slot.proc is not None and slot.start_mode == "spawned"
    environ = Path(f"/proc/{slot.proc.pid}/environ").read_bytes().split(b"\0")
    [tag] = [v.split(b"=", 1)[1].decode() for v in environ if v.startswith(WORKER_TAG.encode())]
    assert template.tags and tag not in template.tags
    monkeypatch.setattr(pool, "template", None)


def test_a_worker_that_never_gets_ready_is_stopped_and_reported_as_start_failed(
    tmp_path: Path, exits: ExitLog
) -> None:
    silent = tmp_path / "silent-python"  # starts, never says worker/ready
    silent.write_text("#!/bin/sh\nexec sleep 60\n")
    silent.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    pool = WorkerPool(
        home.resolve(),
        str(silent),
        dict(os.environ),
        lambda slot, note, body: None,
        exits,
        max_body_bytes=DEFAULT_MAX_BODY_BYTES,
        ready_timeout=0.5,
    )
    try:
        slot = pool.slot("default", None)
        with pytest.raises(RpcError) as err:
            pool.ensure_ready(slot)
        assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
        [note] = exits.wait()
        assert note.expected is True and note.reason == "start_failed"
    finally:
        pool.close()


def test_on_ready_is_called_once_a_worker_is_ready_before_its_start_returns(
    pool: WorkerPool,
) -> None:
    seen: list[tuple[str, bool]] = []
    pool.on_ready = lambda slot: seen.append((slot.state, slot.ready.is_set()))
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)
    # Ready, and the start's waiters not yet released: what on_ready sends comes first.
    assert seen == [("ready", False)]
    pool.ensure_ready(slot)
    assert len(seen) == 1  # an already-ready worker is not announced again


def test_a_failing_on_ready_still_ends_the_start(pool: WorkerPool) -> None:
    def fail(_slot: WorkerSlot) -> None:
        raise RuntimeError("boom")

    pool.on_ready = fail
    slot = pool.slot("default", None)
    pool.ensure_ready(slot)  # within ready_timeout, not after it
    assert slot.state == "ready" and slot.start_error is None
