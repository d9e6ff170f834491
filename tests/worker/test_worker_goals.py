"""Goals against a fake module shaped like hermes' ``hermes_cli.goals``: actions map to
GoalManager calls, refusals become ValueError, and one session's goal is changed by one
caller at a time."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.protocol.types import GoalInfo
from hermes_stdio.worker import goals

WAIT = 10.0


class FakeGoals:
    """A goal store plus a GoalManager that loads from it and saves back, as hermes'."""

    def __init__(self) -> None:
        self.stored: dict[str, SimpleNamespace] = {}
        self.judging = threading.Event()
        self.release = threading.Event()
        store = self

        class GoalManager:
            def __init__(self, session_id: str, default_max_turns: int = 20) -> None:
                self.sid, self.default = session_id, default_max_turns
                kept = store.stored.get(session_id)
                self.state = SimpleNamespace(**vars(kept)) if kept else None
                if self.state is not None:
                    self.state.subgoals = list(kept.subgoals)

            def _save(self) -> None:
                store.stored[self.sid] = self.state

            def has_goal(self) -> bool:
                return self.state is not None and self.state.status in ("active", "paused")

            def is_active(self) -> bool:
                return self.state is not None and self.state.status == "active"

            def set(self, goal: str, max_turns: int | None = None) -> None:
                if not goal.strip():
                    raise ValueError("goal text is empty")
                self.state = SimpleNamespace(
                    goal=goal,
                    status="active",
                    turns_used=0,
                    max_turns=max_turns or self.default,
                    subgoals=[],
                    last_verdict=None,
                    last_reason=None,
                )
                self._save()

            def add_subgoal(self, text: str) -> str:
                if not self.has_goal():
                    raise RuntimeError("no active goal")
                self.state.subgoals.append(text)
                self._save()
                return text

            def remove_subgoal(self, index: int) -> str:
                if not 1 <= index <= len(self.state.subgoals):
                    raise IndexError("index out of range")
                removed: str = self.state.subgoals.pop(index - 1)
                self._save()
                return removed

            def evaluate_after_turn(self, last: str, user_initiated: bool = True) -> dict[str, Any]:
                store.judging.set()
                store.release.wait(WAIT)
                self.state.turns_used += 1
                self.state.last_verdict, self.state.last_reason = "continue", "more"
                self._save()
                return {
                    "verdict": "continue",
                    "reason": "more",
                    "should_continue": True,
                    "continuation_prompt": "go on",
                    "message": "...",
                }

        self.GoalManager = GoalManager


def apply(fake: FakeGoals, action: str, **kw: Any) -> GoalInfo:
    return goals.apply(fake, "s1", action, kw.get("text"), kw.get("index"), kw.get("max_turns"), 20)


def test_actions_reach_the_manager_and_refusals_are_value_errors() -> None:
    fake = FakeGoals()
    assert apply(fake, "status") == GoalInfo(None, None, 0, None, [], None, None)
    with pytest.raises(ValueError):
        apply(fake, "addSubgoal", text="x")  # hermes: RuntimeError, no active goal
    with pytest.raises(ValueError):
        apply(fake, "pause")
    state = apply(fake, "set", text="ship it", max_turns=4)
    assert (state.goal, state.status, state.max_turns) == ("ship it", "active", 4)
    with pytest.raises(ValueError):
        apply(fake, "removeSubgoal", index=2)  # hermes: IndexError
    assert goals.evaluate(fake, "s2", "done", 20) is None  # no goal, no judge


def test_a_subgoal_added_while_the_judge_thinks_survives_the_verdict() -> None:
    fake = FakeGoals()
    apply(fake, "set", text="ship it")
    verdicts: list[Any] = []
    judge = threading.Thread(target=lambda: verdicts.append(goals.evaluate(fake, "s1", "x", 20)))
    judge.start()
    assert fake.judging.wait(WAIT)
    added = threading.Thread(target=apply, args=(fake, "addSubgoal"), kwargs={"text": "tests"})
    added.start()
    added.join(0.2)
    assert added.is_alive()  # waits for the judge instead of racing it
    fake.release.set()
    judge.join(WAIT)
    added.join(WAIT)
    assert verdicts[0].should_continue is True and verdicts[0].turns_used == 1
    assert fake.stored["s1"].subgoals == ["tests"]
    assert fake.stored["s1"].turns_used == 1
