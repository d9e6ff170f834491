"""HermesProfile.subagent_hook: a session's background subagents' activity goes to the
host as subagent/progress; what matches no delegation stays the run's tool.progress."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_stdio.protocol.processes import SubagentProgress
from hermes_stdio.worker.profile import HermesProfile


class Watch:
    def __init__(self, delegations: dict[str, str] | None = None, broken: bool = False) -> None:
        self.delegations, self.broken = delegations or {}, broken

    def delegation_of(self, session_id: str, identity: dict[str, Any]) -> str | None:
        if self.broken:
            raise KeyError("delegation_id")
        return self.delegations.get(str(identity.get("goal")))


def hooked(watch: Watch | None, sent: list[tuple[str, str, SubagentProgress]]) -> Any:
    profile = HermesProfile()
    profile.watch_subagents(lambda *_: None, lambda *a: sent.append(a))
    profile._subagent_watch = watch  # type: ignore[assignment]
    return profile.subagent_hook("s1")


def test_a_background_subagents_report_is_sent_as_its_progress_and_taken() -> None:
    sent: list[tuple[str, str, SubagentProgress]] = []
    hook = hooked(Watch({"kiwis": "deleg_1"}), sent)
    assert hook("subagent.tool", "terminal", "ls", {"goal": "kiwis", "task_count": 1})
    [(sid, sub_id, progress)] = sent
    assert (sid, sub_id, progress.kind, progress.name, progress.preview) == (
        "s1",
        "deleg_1",
        "subagent.tool",
        "terminal",
        "ls",
    )


def test_a_report_of_no_delegation_or_one_that_cannot_be_matched_is_left_to_the_run(
    capfd: pytest.CaptureFixture[str],
) -> None:
    sent: list[Any] = []
    assert not hooked(Watch(), sent)("subagent.text", None, "hi", {"goal": "within the turn"})
    assert not hooked(Watch(broken=True), sent)("subagent.text", None, "hi", {"goal": "x"})
    assert sent == []
    assert "matching a subagent's subagent.text to its delegation failed" in capfd.readouterr().err


def test_a_report_that_cannot_be_sent_is_logged_and_still_taken(
    capfd: pytest.CaptureFixture[str],
) -> None:
    profile = HermesProfile()

    def gone(*_: Any) -> None:
        raise OSError("supervisor gone")

    profile.watch_subagents(lambda *_: None, gone)
    profile._subagent_watch = Watch({"kiwis": "deleg_1"})  # type: ignore[assignment]
    hook = profile.subagent_hook("s1")
    assert hook is not None and hook("subagent.start", None, "kiwis", {"goal": "kiwis"})
    assert "subagent deleg_1's subagent.start was not sent" in capfd.readouterr().err


def test_no_hook_before_hermes_is_watched_or_without_a_progress_listener() -> None:
    assert hooked(None, []) is None
    profile = HermesProfile()
    profile.watch_subagents(lambda *_: None)
    profile._subagent_watch = Watch()  # type: ignore[assignment]
    assert profile.subagent_hook("s1") is None


class Warmed(HermesProfile):
    """Counts the tool definitions a warm-up computes; ``hold`` keeps one under way."""

    def __init__(self, hold: threading.Event | None = None, fail: bool = False) -> None:
        self.computed, self.hold, self.fail = 0, hold, fail
        self.under_way = threading.Event()

    def offered_tools(self, agent: Any) -> dict[str, Any]:
        assert agent is None  # what a new session's agent is built with
        self.computed += 1
        self.under_way.set()
        if self.hold is not None:
            assert self.hold.wait(10)
        if self.fail:
            raise RuntimeError("a check failed")
        return {}


def test_a_first_build_is_warmed_once_and_not_at_all_once_a_build_started() -> None:
    warmed = Warmed()
    warmed.warm_build()
    warmed.warm_build()  # hermes keeps what the first computed
    assert warmed.computed == 1
    late = Warmed()
    late.build_started()
    late.warm_build()
    assert late.computed == 0
    Warmed(fail=True).warm_build()  # the build reports what fails, not the warm-up


def test_a_build_that_starts_while_the_warm_up_is_under_way_waits_for_it() -> None:
    hold = threading.Event()
    warmed, started = Warmed(hold), threading.Event()
    warm = threading.Thread(target=warmed.warm_build)
    warm.start()
    assert warmed.under_way.wait(10)
    build = threading.Thread(target=lambda: (warmed.build_started(), started.set()))
    build.start()
    assert not started.wait(0.2)  # (a bound on a wait that must not end, not a sleep)
    hold.set()
    assert started.wait(10)
    warm.join(10)
    build.join(10)
    assert warmed.computed == 1
