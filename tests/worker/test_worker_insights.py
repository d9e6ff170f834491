"""insights against hermes' real session database and its real InsightsEngine (no agent):
what usage/summary answers."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import encode
from hermes_stdio.worker import insights

DAY_S = 86400


@pytest.fixture
def engine() -> Any:
    return pytest.importorskip("agent.insights").InsightsEngine


def session(db: Any, sid: str, source: str, model: str, started_at: float, **used: Any) -> None:
    db.create_session(sid, source=source, model=model)
    db.update_token_counts(sid, model=model, **used)
    db._conn.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (started_at, sid))
    db._conn.commit()


def called(db: Any, sid: str, *calls: tuple[str, dict[str, Any]]) -> None:
    db.append_message(sid, "user", "go")
    db.append_message(
        sid,
        "assistant",
        None,
        tool_calls=[
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    )


def test_a_summary_adds_up_the_period_per_model_source_tool_skill_and_day(
    db: Any, engine: Any, tmp_path: Path
) -> None:
    now = time.time()
    priced = {"cost_status": "estimated", "cost_source": "test", "api_call_count": 2}
    session(db, "a", "cli", "vendor/model-a", now - 60, input_tokens=100, output_tokens=10,
            estimated_cost_usd=0.25, **priced)  # fmt: skip
    called(db, "a", ("terminal", {"command": "ls"}), ("skill_view", {"name": "kiwi"}))
    session(db, "b", "vscode", "model-b", now - 30, input_tokens=7, output_tokens=3,
            cost_status="unknown", api_call_count=1)  # fmt: skip
    called(db, "b", ("terminal", {"command": "pwd"}))
    session(db, "old", "cli", "vendor/model-a", now - 40 * DAY_S, input_tokens=1000,
            estimated_cost_usd=1.0, **priced)  # fmt: skip

    got = insights.summarize(engine, tmp_path / "state.db", 30, None, 0)

    assert (got.days, got.source) == (30, None)
    assert got.since == pytest.approx((now - 30 * DAY_S) * 1000, abs=5000)
    t = got.totals
    assert (t.sessions, t.messages, t.user_messages, t.assistant_messages) == (2, 4, 2, 2)
    assert (t.input_tokens, t.output_tokens, t.api_calls) == (107, 13, 3)
    assert t.cost_usd == pytest.approx(0.25)  # model-b was not priced: it adds nothing
    assert (t.first_started_at, t.last_started_at) == (
        int((now - 60) * 1000),
        int((now - 30) * 1000),
    )
    assert t.active_days == 1
    by_model = {m.model: m for m in got.models}
    assert list(by_model) == ["model-a", "model-b"]  # most tokens first, prefix dropped
    assert (by_model["model-a"].cost_usd, by_model["model-b"].cost_usd) == (0.25, None)
    assert (by_model["model-a"].api_calls, by_model["model-a"].input_tokens) == (2, 100)
    assert sorted((s.source, s.sessions, s.input_tokens) for s in got.sources) == [
        ("cli", 1, 100),
        ("vscode", 1, 7),
    ]
    assert [(x.tool, x.calls) for x in got.tools] == [("terminal", 2), ("skill_view", 1)]
    assert [(s.skill, s.loads, s.edits) for s in got.skills] == [("kiwi", 1, 0)]
    assert got.skills[0].last_used_at is not None
    today = datetime.fromtimestamp(now, UTC).date()
    assert len(got.daily) == 31 and got.daily[-1].date == today.isoformat()
    assert got.daily[0].date == (today - timedelta(days=30)).isoformat()
    assert [(d.sessions, d.api_calls, d.input_tokens, d.cost_usd) for d in got.daily[-1:]] == [
        (2, 3, 107, 0.25)
    ]
    assert sum(d.sessions for d in got.daily) == 2

    longer = insights.summarize(engine, tmp_path / "state.db", 60, None, 0)
    assert longer.totals.sessions == 3 and longer.totals.cost_usd == pytest.approx(1.25)
    assert longer.totals.active_days == 2 and len(longer.daily) == 61
    only = insights.summarize(engine, tmp_path / "state.db", 30, "vscode", 0)
    assert (only.source, only.totals.sessions, [m.model for m in only.models]) == (
        "vscode",
        1,
        ["model-b"],
    )
    assert only.totals.cost_usd is None and sum(d.sessions for d in only.daily) == 1


def test_daily_days_begin_at_the_hosts_utc_offset(db: Any, engine: Any, tmp_path: Path) -> None:
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    late = (midnight - timedelta(minutes=30)).timestamp()  # 23:30 UTC yesterday
    session(db, "late", "cli", "m", late, input_tokens=1)

    def day_of(offset: int) -> str:
        got = insights.summarize(engine, tmp_path / "state.db", 3, None, offset)
        return next(d.date for d in got.daily if d.sessions)

    yesterday = (midnight - timedelta(days=1)).date().isoformat()
    assert day_of(0) == yesterday
    assert day_of(-120) == yesterday
    assert day_of(60) == midnight.date().isoformat()


def test_an_empty_period_answers_zeros_every_day_and_no_cost(
    db: Any, engine: Any, tmp_path: Path
) -> None:
    got = insights.summarize(engine, tmp_path / "state.db", 7, None, 0)
    wire = encode(got)
    assert wire["totals"] == {
        "sessions": 0,
        "messages": 0,
        "userMessages": 0,
        "assistantMessages": 0,
        "toolCalls": 0,
        "apiCalls": 0,
        "inputTokens": 0,
        "outputTokens": 0,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
        "reasoningTokens": 0,
        "costUsd": None,
        "actualCostUsd": 0.0,
        "activeSeconds": 0.0,
        "activeDays": 0,
        "firstStartedAt": None,
        "lastStartedAt": None,
    }
    assert (wire["models"], wire["sources"], wire["tools"], wire["skills"]) == ([], [], [], [])
    assert len(wire["daily"]) == 8
    assert wire["daily"][0].keys() == {
        "date",
        "sessions",
        "apiCalls",
        "inputTokens",
        "outputTokens",
        "costUsd",
    }
    assert all(d["sessions"] == 0 and d["costUsd"] == 0.0 for d in wire["daily"])
