"""HermesProfile.subagent_hook: a session's background subagents' activity goes to the
host as subagent/progress; what matches no delegation stays the run's tool.progress."""

from __future__ import annotations

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
