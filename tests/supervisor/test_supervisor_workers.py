"""WorkerPool without real processes: worker/ready handling, backoff and its reset."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import PROTOCOL_VERSION
from hermes_stdio.supervisor import workers as workers_mod
from hermes_stdio.supervisor.slot import WorkerSlot
from hermes_stdio.supervisor.workers import WorkerPool
from hermes_stdio.wire import DEFAULT_MAX_BODY_BYTES, ErrorType, RpcError


@pytest.fixture
def pool(tmp_path: Path) -> WorkerPool:
    home = tmp_path / "home"
    home.mkdir()
    return WorkerPool(
        home,
        sys.executable,
        {},
        lambda slot, note, body: None,
        lambda slot, note: None,
        max_body_bytes=DEFAULT_MAX_BODY_BYTES,
    )


def ready_params(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "protocolVersion": PROTOCOL_VERSION,
        "pid": 4242,
        "profile": "default",
        "python": sys.executable,
    }
    params.update(overrides)
    return params


def starting_slot(pool: WorkerPool) -> tuple[WorkerSlot, Any]:
    slot = pool.slot("default", None)
    proc = object()  # stands in for the Popen of the process being started
    slot.proc = proc  # type: ignore[assignment]
    slot.state = "starting"
    return slot, proc


def test_pool_slot_returns_the_same_slot_for_the_same_key(pool: WorkerPool) -> None:
    a = pool.slot("default", None)
    assert pool.slot("default", None) is a
    assert pool.slot("default", "k") is not a
    assert pool.existing(("default", None)) is a
    assert pool.existing(("work", None)) is None
    assert set(pool.slots()) == {a, pool.slot("default", "k")}


def test_mark_ready_with_matching_params_makes_the_slot_ready(pool: WorkerPool) -> None:
    slot, proc = starting_slot(pool)
    pool.mark_ready(slot, proc, ready_params())
    assert slot.state == "ready"
    assert slot.ready.is_set()
    assert slot.start_error is None


def test_mark_ready_with_another_protocol_version_fails_the_start(pool: WorkerPool) -> None:
    slot, proc = starting_slot(pool)
    pool.mark_ready(slot, proc, ready_params(protocolVersion=PROTOCOL_VERSION + 1))
    assert slot.start_error is not None
    assert slot.start_error.kind is ErrorType.WORKER_UNAVAILABLE
    assert slot.state != "ready"
    assert slot.ready.is_set()  # the waiting starter wakes up and sees the error


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"protocolVersion": PROTOCOL_VERSION},
        ready_params(pid="not-a-number"),
        ready_params(extra=1),
        {k: v for k, v in ready_params().items() if k != "profile"},
    ],
)
def test_mark_ready_with_malformed_params_fails_the_start_as_worker_unavailable(
    pool: WorkerPool, params: dict[str, Any]
) -> None:
    slot, proc = starting_slot(pool)
    pool.mark_ready(slot, proc, params)
    assert slot.start_error is not None
    assert slot.start_error.kind is ErrorType.WORKER_UNAVAILABLE
    assert slot.state != "ready"
    assert slot.ready.is_set()


def test_mark_ready_from_a_stale_process_does_not_make_the_slot_ready(pool: WorkerPool) -> None:
    slot, _current = starting_slot(pool)
    pool.mark_ready(slot, object(), ready_params())  # type: ignore[arg-type]
    assert slot.state == "starting"


def test_reset_backoff_clears_crashes_and_the_backoff_state(pool: WorkerPool) -> None:
    slot = pool.slot("default", None)
    slot.crashes.extend([1.0, 2.0, 3.0])
    slot.state = "backoff"
    pool.reset_backoff(slot)
    assert not slot.crashes
    assert slot.state == "exited"


def test_reset_backoff_without_a_slot_resets_every_slot(pool: WorkerPool) -> None:
    a, b = pool.slot("default", None), pool.slot("default", "k")
    for s in (a, b):
        s.crashes.append(1.0)
        s.state = "backoff"
    pool.reset_backoff()
    assert [(list(s.crashes), s.state) for s in (a, b)] == [([], "exited"), ([], "exited")]


def test_reset_backoff_leaves_a_slot_that_is_not_backing_off_in_its_state(
    pool: WorkerPool,
) -> None:
    slot = pool.slot("default", None)
    slot.state = "ready"
    slot.crashes.append(1.0)
    pool.reset_backoff(slot)
    assert slot.state == "ready"
    assert not slot.crashes


def test_ensure_ready_on_a_backing_off_slot_raises_without_spawning(
    pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[Any] = []

    def no_spawn(*args: Any, **kwargs: Any) -> Any:
        spawned.append(args)
        raise AssertionError("must not spawn while backing off")

    monkeypatch.setattr(workers_mod, "spawn_child", no_spawn)
    slot = pool.slot("default", None)
    slot.state = "backoff"
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(slot)
    assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
    assert spawned == []
    assert slot.state == "backoff"
    assert slot.proc is None


def test_ensure_ready_reports_an_unstartable_interpreter_as_worker_unavailable(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pool = WorkerPool(
        home,
        str(tmp_path / "no-such-python"),
        {},
        lambda slot, note, body: None,
        lambda slot, note: None,
        max_body_bytes=DEFAULT_MAX_BODY_BYTES,
    )
    slot = pool.slot("default", None)
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(slot)
    assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
    assert slot.proc is None


def test_ensure_ready_for_an_unknown_profile_raises_unknown_profile(pool: WorkerPool) -> None:
    with pytest.raises(RpcError) as err:
        pool.ensure_ready(pool.slot("ghost", None))
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE


def test_stop_of_a_slot_without_a_process_does_nothing(pool: WorkerPool) -> None:
    slot = pool.slot("default", None)
    pool.stop(slot)
    assert slot.state == "exited"
    assert not slot.stopping


def test_forget_drops_only_an_exited_keyed_slot_that_nothing_uses(pool: WorkerPool) -> None:
    unused, used = (lambda _key: False), (lambda _key: True)
    assert not pool.forget(pool.slot("default", None), unused)  # one per profile: kept
    busy = pool.slot("default", "busy")
    assert not pool.forget(busy, used)
    for state in ("starting", "ready", "stopping", "backoff"):
        live = pool.slot("default", state)
        live.state = state  # type: ignore[assignment]
        assert not pool.forget(live, unused), state
    held = pool.slot("default", "held")
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with held.lock:
            locked.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(10)
    assert not pool.forget(held, unused)  # a start may be under way: never waited for
    release.set()
    holder.join(10)

    gone = pool.slot("default", "gone")
    assert pool.forget(gone, unused) and gone.forgotten
    assert pool.existing(gone.key) is None and gone not in pool.slots()
    assert not pool.forget(gone, unused)  # once
    assert pool.slot("default", "gone") is not gone


def test_a_caller_holding_a_forgotten_slot_starts_the_keys_current_slot(pool: WorkerPool) -> None:
    old = pool.slot("default", "k")
    assert pool.forget(old, lambda _key: False)
    tried: list[WorkerSlot] = []

    def refuse(slot: WorkerSlot) -> None:
        tried.append(slot)
        raise RpcError(ErrorType.WORKER_LIMIT, "stand-in: no room")

    pool.before_start = refuse
    with pytest.raises(RpcError):
        pool.ensure_ready(old)
    current = pool.existing(("default", "k"))
    assert current is not None and current is not old and tried == [current]


def test_an_exit_by_a_signal_is_named_even_a_signal_without_a_name() -> None:
    slot = WorkerSlot("work", None)
    killed = slot.exit_note(41, -9, False, "crashed")
    assert (killed.exit_code, killed.signal, killed.expected) == (None, "SIGKILL", False)
    realtime = slot.exit_note(41, -40, True, "shutdown")  # between SIGRTMIN and SIGRTMAX
    assert (realtime.exit_code, realtime.signal, realtime.expected) == (None, "SIG40", True)
    plain = slot.exit_note(41, 3, False, "crashed")
    assert (plain.exit_code, plain.signal, plain.pid, plain.profile) == (3, None, 41, "work")
