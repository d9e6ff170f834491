"""worker/session_end.py: a session that is over reaches hermes' memory provider and
``on_session_finalize``; one unloaded for idleness reaches the provider only."""

from __future__ import annotations

from typing import Any

import pytest
from hermes_cli import plugins

from hermes_stdio.worker import session_end


class Agent:
    """hermes' AIAgent, in short: what session_end calls on it."""

    session_id, platform = "20261207_abc", "cli"

    def __init__(self, fails: bool = False) -> None:
        self.calls: list[tuple[str, list[dict[str, Any]]]] = []
        self.fails = fails

    def shutdown_memory_provider(self, messages: list[dict[str, Any]]) -> None:
        self.calls.append(("shutdown", messages))
        if self.fails:
            raise RuntimeError("provider down")

    def commit_memory_session(self, messages: list[dict[str, Any]]) -> None:
        self.calls.append(("commit", messages))


HISTORY = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


@pytest.fixture
def hooks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    fired: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(plugins, "invoke_hook", lambda name, **kw: fired.append((name, kw)))
    return fired


@pytest.mark.parametrize("reason", ["closed", "shutdown"])
def test_a_session_that_is_over_hands_its_conversation_over_then_finalizes(
    hooks: list[tuple[str, dict[str, Any]]], reason: str
) -> None:
    agent = Agent()
    session_end.end(agent, HISTORY, reason)
    assert agent.calls == [("shutdown", HISTORY)]
    assert hooks == [
        (
            "on_session_finalize",
            {"session_id": agent.session_id, "platform": "cli", "reason": reason},
        )
    ]


def test_an_idle_session_is_handed_over_and_its_provider_shut_down_without_ending_it(
    hooks: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = Agent()
    session_end.end(agent, HISTORY, session_end.IDLE)
    assert agent.calls == [("shutdown", HISTORY)] and hooks == []
    assert agent._end_session_on_close is False  # hermes' close leaves its row open


def test_a_closed_session_leaves_hermes_to_end_its_row(
    hooks: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = Agent()
    session_end.end(agent, HISTORY, "closed")
    assert not hasattr(agent, "_end_session_on_close")


def test_a_failing_provider_still_finalizes_and_nothing_reaches_the_caller(
    hooks: list[tuple[str, dict[str, Any]]],
) -> None:
    session_end.end(Agent(fails=True), HISTORY, "closed")
    assert [name for name, _ in hooks] == ["on_session_finalize"]
