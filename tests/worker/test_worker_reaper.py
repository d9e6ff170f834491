"""worker/reaper.py: hermes' idle terminal environments go when their lifetime
ends, by one timer armed for the earliest expiry, and nothing wakes once none
is left."""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any

import pytest

from hermes_stdio.worker import reaper
from hermes_stdio.worker.reaper import RETRY_S, SLACK_S, Reaper

LIFETIME = 300.0


class FakeTimer:
    def __init__(self, armed: list[FakeTimer], delay: float, fire: Callable[[], None]) -> None:
        self.delay, self.fire, self.daemon, self.started = delay, fire, False, False
        armed.append(self)

    def start(self) -> None:
        self.started = True


class FakeTerminalTool:
    """hermes' ``tools.terminal_tool`` as the reaper uses it."""

    def __init__(self) -> None:
        self._env_lock = threading.Lock()
        self._last_activity: dict[str, float] = {}
        self.reaped: list[float] = []
        self.fail = False
        self.now = 1000.0

    def _get_env_config(self) -> dict[str, Any]:
        return {"lifetime_seconds": int(LIFETIME)}

    def _cleanup_inactive_envs(self, lifetime_seconds: float) -> None:
        if self.fail:
            raise RuntimeError("sandbox teardown failed")
        self.reaped.append(lifetime_seconds)
        for task, used in list(self._last_activity.items()):
            if self.now - used > lifetime_seconds:
                del self._last_activity[task]

    def _start_cleanup_thread(self) -> None:
        raise AssertionError("hermes' own thread must not start")


def reaper_for(tt: FakeTerminalTool) -> tuple[Reaper, list[FakeTimer]]:
    armed: list[FakeTimer] = []
    return Reaper(tt, lambda d, f: FakeTimer(armed, d, f), lambda: tt.now), armed


def due(**used_after: float) -> tuple[FakeTerminalTool, Reaper, list[FakeTimer]]:
    """A reaper armed for environments used so many seconds from now, with the
    clock moved to when its timer fires."""
    tt = FakeTerminalTool()
    tt._last_activity.update({task: tt.now + after for task, after in used_after.items()})
    r, armed = reaper_for(tt)
    r.start()
    tt.now += LIFETIME + SLACK_S
    return tt, r, armed


def test_a_start_arms_one_daemon_timer_for_when_the_oldest_environment_expires() -> None:
    tt = FakeTerminalTool()
    tt._last_activity.update({"a": tt.now - 100, "b": tt.now - 10})
    r, armed = reaper_for(tt)
    r.start()
    r.start()  # every tool call starts it: one timer only
    assert len(armed) == 1 and armed[0].started and armed[0].daemon
    assert armed[0].delay == pytest.approx(LIFETIME - 100 + SLACK_S)


def test_a_start_before_the_first_environment_exists_arms_for_a_lifetime_from_now() -> None:
    tt = FakeTerminalTool()
    r, armed = reaper_for(tt)
    r.start()
    assert [t.delay for t in armed] == [LIFETIME + SLACK_S]


def test_firing_reaps_with_hermes_rules_then_arms_for_the_next_expiry() -> None:
    tt, r, armed = due(a=0, b=50)
    armed[0].fire()
    assert tt.reaped == [LIFETIME] and list(tt._last_activity) == ["b"]
    assert len(armed) == 2 and armed[1].delay == pytest.approx(50.0)
    r.start()  # armed already
    assert len(armed) == 2


def test_once_no_environment_is_left_nothing_is_armed_until_a_tool_runs_again() -> None:
    tt, r, armed = due(a=0)
    armed[0].fire()
    assert tt._last_activity == {} and len(armed) == 1
    tt._last_activity["b"] = tt.now
    r.start()
    assert len(armed) == 2 and armed[1].delay == pytest.approx(LIFETIME + SLACK_S)


def test_an_environment_used_since_the_timer_was_armed_is_kept_and_waited_for() -> None:
    tt, _r, armed = due(a=0)
    tt._last_activity["a"] = tt.now - 20  # used again 20 s ago
    armed[0].fire()
    assert "a" in tt._last_activity
    assert armed[1].delay == pytest.approx(LIFETIME - 20 + SLACK_S)


def test_a_failing_reap_is_logged_and_tried_again_later(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tt, _r, armed = due(a=0)
    tt.fail = True
    armed[0].fire()
    assert "sandbox teardown failed" in capfd.readouterr().err
    assert [t.delay for t in armed[1:]] == [RETRY_S]


def test_install_replaces_hermes_starter_once_and_reaps_through_a_real_timer() -> None:
    tt = FakeTerminalTool()
    module = types.SimpleNamespace(**{n: getattr(tt, n) for n in dir(tt) if n.startswith("_")})
    assert reaper.install(module)
    start = module._start_cleanup_thread
    assert reaper.install(module) and module._start_cleanup_thread is start
    module._last_activity["a"] = 0.0  # long expired: due at once
    done = threading.Event()
    cleanup = module._cleanup_inactive_envs
    module._cleanup_inactive_envs = lambda lifetime: (cleanup(lifetime), done.set())
    tt.now = 10**12
    start()
    assert done.wait(10)


def test_install_leaves_a_module_without_hermes_internals_alone() -> None:
    def own() -> None:
        pass

    module = types.SimpleNamespace(_start_cleanup_thread=own)
    assert not reaper.install(module)
    assert module._start_cleanup_thread is own


def test_a_start_that_cannot_read_hermes_config_is_logged_and_does_not_fail_the_tool(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tt = FakeTerminalTool()

    def broken() -> dict[str, Any]:
        raise ValueError("TERMINAL_LIFETIME_SECONDS is not a number")

    tt._get_env_config = broken  # type: ignore[method-assign]
    r, armed = reaper_for(tt)
    r.start()
    assert armed == [] and "not a number" in capfd.readouterr().err
