"""A profile's usage over a period, as ``hermes insights`` counts it.

Contract: ``summarize(engine, path, days, source, utc_offset_minutes)`` runs
hermes' ``InsightsEngine`` (passed in: only the adapter imports hermes) over
the session database at ``path`` for the sessions started in the last ``days``
days (of ``source`` only, when given) and returns a ``UsageSummaryResult``:
hermes' totals, its per-model, per-source, per-tool and per-skill figures, and
one ``DayUsage`` for every day of the period at that UTC offset, idle days
included, from the sessions' own counters. It reads through a private read-only
connection, never the agents' own: hermes' pricing lookups inside it may wait
on the network and must hold none of their locks. A model's cost is null when
hermes priced none of its calls, and the total's when it priced no model.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from ..protocol import insights as ins
from .usage import PRICED

DAY_S = 86400


class _Db:
    """What ``InsightsEngine`` reads of hermes' ``SessionDB``: its connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn


def summarize(
    engine: Any, path: Path, days: int, source: str | None, utc_offset_minutes: int
) -> ins.UsageSummaryResult:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
    conn.row_factory = sqlite3.Row
    try:
        now = time.time()
        report = engine(_Db(conn)).generate(days=days, source=source)
        since = now - days * DAY_S
        daily = _daily(conn, since, now, source, utc_offset_minutes * 60)
    finally:
        conn.close()
    models = [_model(m) for m in report.get("models") or []]
    return ins.UsageSummaryResult(
        days=days,
        since=int(since * 1000),
        source=source,
        totals=_totals(report.get("overview") or {}, models, daily),
        models=models,
        sources=[
            ins.SourceUsage(
                source=str(p.get("platform") or "unknown"),
                sessions=_int(p, "sessions"),
                messages=_int(p, "messages"),
                tool_calls=_int(p, "tool_calls"),
                input_tokens=_int(p, "input_tokens"),
                output_tokens=_int(p, "output_tokens"),
            )
            for p in report.get("platforms") or []
        ],
        tools=[
            ins.ToolUsage(tool=str(t["tool"]), calls=_int(t, "count"))
            for t in report.get("tools") or []
        ],
        skills=[
            ins.SkillUsage(
                skill=str(s["skill"]),
                loads=_int(s, "view_count"),
                edits=_int(s, "manage_count"),
                last_used_at=_ms(s.get("last_used_at")),
            )
            for s in (report.get("skills") or {}).get("top_skills") or []
        ],
        daily=daily,
    )


def _model(m: dict[str, Any]) -> ins.ModelUsage:
    cost = float(m.get("cost") or 0.0)
    priced = bool(m.get("has_pricing")) or cost > 0 or m.get("cost_status") in PRICED
    return ins.ModelUsage(
        model=str(m.get("model") or "unknown"),
        sessions=_int(m, "sessions"),
        api_calls=_int(m, "api_calls"),
        tool_calls=_int(m, "tool_calls"),
        input_tokens=_int(m, "input_tokens"),
        output_tokens=_int(m, "output_tokens"),
        cache_read_tokens=_int(m, "cache_read_tokens"),
        cache_write_tokens=_int(m, "cache_write_tokens"),
        reasoning_tokens=_int(m, "reasoning_tokens"),
        cost_usd=round(cost, 9) if priced else None,
        actual_cost_usd=round(float(m.get("actual_cost") or 0.0), 9),
    )


def _totals(
    o: dict[str, Any], models: list[ins.ModelUsage], daily: list[ins.DayUsage]
) -> ins.UsageTotals:
    costs = [m.cost_usd for m in models if m.cost_usd is not None]
    return ins.UsageTotals(
        sessions=_int(o, "total_sessions"),
        messages=_int(o, "total_messages"),
        user_messages=_int(o, "user_messages"),
        assistant_messages=_int(o, "assistant_messages"),
        tool_calls=_int(o, "total_tool_calls"),
        api_calls=sum(m.api_calls for m in models),
        input_tokens=_int(o, "total_input_tokens"),
        output_tokens=_int(o, "total_output_tokens"),
        cache_read_tokens=_int(o, "total_cache_read_tokens"),
        cache_write_tokens=_int(o, "total_cache_write_tokens"),
        reasoning_tokens=sum(m.reasoning_tokens for m in models),
        cost_usd=round(sum(costs), 9) if costs else None,
        actual_cost_usd=round(float(o.get("actual_cost") or 0.0), 9),
        active_seconds=round(float(o.get("total_hours") or 0.0) * 3600, 3),
        active_days=sum(1 for d in daily if d.sessions),
        first_started_at=_ms(o.get("date_range_start")),
        last_started_at=_ms(o.get("date_range_end")),
    )


def _daily(
    conn: sqlite3.Connection, since: float, now: float, source: str | None, offset_s: int
) -> list[ins.DayUsage]:
    sql = (
        "SELECT date(started_at + ?, 'unixepoch') AS day, COUNT(*) AS sessions,"
        " SUM(COALESCE(api_call_count, 0)) AS api_calls,"
        " SUM(COALESCE(input_tokens, 0)) AS input_tokens,"
        " SUM(COALESCE(output_tokens, 0)) AS output_tokens,"
        " SUM(COALESCE(estimated_cost_usd, 0)) AS cost"
        " FROM sessions WHERE started_at >= ?"
    )
    args: list[Any] = [offset_s, since]
    if source is not None:
        sql += " AND source = ?"
        args.append(source)
    found = {r["day"]: r for r in conn.execute(sql + " GROUP BY day", args)}
    first, last = (_local_day(t, offset_s) for t in (since, now))
    days = []
    day = first
    while day <= last:
        r = found.get(day.isoformat())
        days.append(
            ins.DayUsage(
                date=day.isoformat(),
                sessions=int(r["sessions"]) if r else 0,
                api_calls=int(r["api_calls"] or 0) if r else 0,
                input_tokens=int(r["input_tokens"] or 0) if r else 0,
                output_tokens=int(r["output_tokens"] or 0) if r else 0,
                cost_usd=round(float(r["cost"] or 0.0), 9) if r else 0.0,
            )
        )
        day += timedelta(days=1)
    return days


def _local_day(t: float, offset_s: int) -> date:
    return datetime.fromtimestamp(t + offset_s, UTC).date()


def _int(row: dict[str, Any], key: str) -> int:
    value = row.get(key)
    return int(value) if isinstance(value, int | float) else 0


def _ms(seconds: Any) -> int | None:
    return int(seconds * 1000) if isinstance(seconds, int | float) else None
