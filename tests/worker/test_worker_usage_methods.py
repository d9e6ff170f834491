"""usage/summary in WorkerService: its bounds, what it asks the adapter, and an agent
that keeps no session database."""

from __future__ import annotations

import threading

import pytest
from worker_service_helpers import error_of

from hermes_stdio.protocol import insights as ins
from hermes_stdio.wire import ErrorType


def totals() -> ins.UsageTotals:
    return ins.UsageTotals(
        sessions=1, messages=2, user_messages=1, assistant_messages=1, tool_calls=0,
        api_calls=1, input_tokens=5, output_tokens=2, cache_read_tokens=0,
        cache_write_tokens=0, reasoning_tokens=0, cost_usd=None, actual_cost_usd=0.0,
        active_seconds=1.5, active_days=1, first_started_at=1000, last_started_at=1000,
    )  # fmt: skip


def test_a_summary_is_asked_of_the_adapter_off_the_reader_and_answered_in_wire_names(
    harness,
) -> None:
    asked: list[tuple[object, ...]] = []

    def summary(days: int, source: str | None, offset: int) -> ins.UsageSummaryResult:
        asked.append((days, source, offset, threading.current_thread() is threading.main_thread()))
        day = ins.DayUsage("2026-12-06", 1, 1, 5, 2, 0.0)
        return ins.UsageSummaryResult(days, 1000, source, totals(), [], [], [], [], [day])

    harness.adapter.usage_summary = summary
    answer = harness.call(
        "usage/summary", {"days": 7, "source": "vscode", "utcOffsetMinutes": -300}
    )
    assert asked == [(7, "vscode", -300, False)]
    result = answer["result"]
    assert (result["days"], result["since"], result["source"]) == (7, 1000, "vscode")
    assert result["totals"]["activeSeconds"] == 1.5
    assert result["daily"] == [
        {
            "date": "2026-12-06",
            "sessions": 1,
            "apiCalls": 1,
            "inputTokens": 5,
            "outputTokens": 2,
            "costUsd": 0.0,
        }
    ]
    harness.call("usage/summary", {})
    assert asked[-1][:3] == (30, None, 0)  # the defaults


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"days": 0}, "params.days"),
        ({"days": 3651}, "params.days"),
        ({"utcOffsetMinutes": 1441}, "params.utcOffsetMinutes"),
        ({"utcOffsetMinutes": -1441}, "params.utcOffsetMinutes"),
        ({"days": "7"}, "params.days"),
    ],
)
def test_a_period_out_of_bounds_is_invalid_params_naming_the_field(harness, params, field) -> None:
    harness.adapter.usage_summary = lambda *a: pytest.fail("asked the adapter")
    answer = harness.call("usage/summary", params)
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == field


def test_an_agent_that_keeps_no_session_database_is_agent_unavailable(harness) -> None:
    answer = harness.call("usage/summary", {"days": 1})
    assert error_of(answer) is ErrorType.AGENT_UNAVAILABLE
