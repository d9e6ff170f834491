"""Standing goals (hermes' ``/goal`` and ``/subgoal``), judged after each turn.

Contract (hermes' ``hermes_cli.goals`` module is passed in, so that only
``adapter`` imports hermes-agent; goals live in the profile's session
database, keyed by session id, so they need no loaded session):
- ``apply(goals, session_id, action, text, index, max_turns, default_turns)``
  does one of ``status``, ``set`` (``text``; ``max_turns`` or the profile's
  ``goals.max_turns``), ``pause``, ``resume`` (a fresh turn budget, as in
  hermes), ``clear``, ``addSubgoal`` (``text``), ``removeSubgoal``
  (1-based ``index``), ``clearSubgoals``; returns the goal's state
  (``info``, a ``GoalInfo``). An action that cannot apply (no goal, empty text, an index out
  of range) raises ``ValueError``.
- ``evaluate(goals, session_id, final_response, default_turns)``: None when
  the session has no active goal; otherwise hermes' judge decides (one call
  to the auxiliary model, which counts a turn of the budget) and the result is
  what the ``goal.evaluated`` event says: verdict, reason, whether to go on
  and with what prompt, and the goal's state after it.
- Both load the goal, change it and save it back; for one session they take
  turns, so a subgoal added while the judge thinks is not lost when the
  judge's verdict is saved.
"""

from __future__ import annotations

import threading
from typing import Any

from ..protocol import events as ev
from ..protocol import types as t

# Striped: a fixed set of locks, so nothing grows with the sessions seen.
_LOCKS = tuple(threading.Lock() for _ in range(32))


def _one_at_a_time(session_id: str) -> threading.Lock:
    return _LOCKS[hash(session_id) % len(_LOCKS)]


def info(state: Any) -> t.GoalInfo:
    if state is None or state.status == "cleared":
        return t.GoalInfo(None, None, 0, None, [], None, None)
    return t.GoalInfo(
        goal=state.goal,
        status=state.status,
        turns_used=int(state.turns_used),
        max_turns=int(state.max_turns),
        subgoals=list(state.subgoals),
        last_verdict=state.last_verdict,
        last_reason=state.last_reason,
    )


def apply(
    goals: Any,
    session_id: str,
    action: str,
    text: str | None,
    index: int | None,
    max_turns: int | None,
    default_turns: int,
) -> t.GoalInfo:
    with _one_at_a_time(session_id):
        mgr = goals.GoalManager(session_id, default_max_turns=default_turns)
        try:
            if action == "set":
                mgr.set(text or "", max_turns=max_turns)
            elif action in ("pause", "resume") and not mgr.has_goal():
                raise ValueError("the session has no goal")
            elif action == "pause":
                mgr.pause(reason="paused by the host")
            elif action == "resume":
                mgr.resume()
            elif action == "clear":
                mgr.clear()
            elif action == "addSubgoal":
                mgr.add_subgoal(text or "")
            elif action == "removeSubgoal":
                mgr.remove_subgoal(index if index is not None else 0)
            elif action == "clearSubgoals":
                mgr.clear_subgoals()
        except (RuntimeError, IndexError) as exc:  # hermes' "no active goal", bad index
            raise ValueError(str(exc)) from exc
        return info(mgr.state)


def evaluate(
    goals: Any, session_id: str, final_response: str, default_turns: int
) -> ev.GoalEvaluatedEvent | None:
    with _one_at_a_time(session_id):
        mgr = goals.GoalManager(session_id, default_max_turns=default_turns)
        if not mgr.is_active():
            return None
        decision = mgr.evaluate_after_turn(final_response, user_initiated=True)
    prompt = decision.get("continuation_prompt")
    return ev.GoalEvaluatedEvent(
        verdict=str(decision.get("verdict") or ""),
        reason=str(decision.get("reason") or ""),
        should_continue=bool(decision.get("should_continue")),
        continuation_prompt=str(prompt) if prompt else None,
        message=str(decision.get("message") or ""),
        **vars(info(mgr.state)),
    )
