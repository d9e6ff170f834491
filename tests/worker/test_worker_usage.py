"""A run's token usage from hermes' per-session counters: the difference over the run,
the window's fill, and nothing for an agent that keeps no counters."""

from __future__ import annotations

from types import SimpleNamespace

from hermes_stdio.protocol.events import RateLimitWindow, UsageLimitsEvent
from hermes_stdio.protocol.usage import TokenUsage
from hermes_stdio.worker.usage import UsageWatch, counters, limits, turn_usage


def agent(**tokens: int) -> SimpleNamespace:
    fields = {f"session_{k}_tokens": tokens.get(k, 0) for k in ("input", "output", "total")}
    fields |= {f"session_{k}_tokens": 0 for k in ("cache_read", "cache_write", "reasoning")}
    compressor = SimpleNamespace(last_prompt_tokens=-1, context_length=1000)
    return SimpleNamespace(
        context_compressor=compressor,
        session_estimated_cost_usd=0.0,
        session_cost_status="unknown",
        **fields,
    )


def test_usage_is_what_the_run_added_and_the_fill_is_unknown_right_after_compression() -> None:
    a = agent(input=100, output=10, total=110)
    before = counters(a)
    a.session_input_tokens, a.session_output_tokens, a.session_total_tokens = 150, 30, 180
    assert turn_usage(a, before) == TokenUsage(50, 20, 0, 0, 0, 70, None, 1000, None)
    a.context_compressor.last_prompt_tokens = 640
    assert turn_usage(a, before) == TokenUsage(50, 20, 0, 0, 0, 70, 640, 1000, None)


def test_an_agent_without_counters_reports_no_usage() -> None:
    assert counters(object()) is None
    assert turn_usage(object(), None) is None


def test_a_watch_reports_the_turns_usage_once_after_each_change_of_the_counters() -> None:
    a = agent(input=100, output=10, total=110)
    watch, sent = UsageWatch(a), []
    watch.report(sent.append)
    assert sent == []  # nothing used yet this turn
    a.session_input_tokens, a.session_total_tokens = 130, 140
    watch.report(sent.append)
    watch.report(sent.append)
    a.session_output_tokens, a.session_total_tokens = 25, 155
    watch.report(sent.append)
    assert sent == [
        TokenUsage(30, 0, 0, 0, 0, 30, None, 1000, None),
        TokenUsage(30, 15, 0, 0, 0, 45, None, 1000, None),
    ]


def test_a_watch_on_an_agent_without_counters_reports_nothing() -> None:
    sent: list[TokenUsage] = []
    UsageWatch(object()).report(sent.append)
    assert sent == []


def test_the_cost_is_what_the_turn_added_to_hermes_estimate_and_null_without_a_price() -> None:
    a = agent(input=100, total=100)
    a.session_estimated_cost_usd, a.session_cost_status = 0.1, "estimated"  # earlier turns
    before = counters(a)
    assert turn_usage(a, before).cost_usd == 0.0  # type: ignore[union-attr]
    a.session_input_tokens = a.session_total_tokens = 400
    a.session_estimated_cost_usd = 0.1 + 0.2  # 0.30000000000000004 in floats
    assert turn_usage(a, before).cost_usd == 0.2  # type: ignore[union-attr]
    a.session_cost_status = "unknown"  # the last call had no price; an earlier one did
    assert turn_usage(a, before).cost_usd == 0.2  # type: ignore[union-attr]
    unpriced = agent(input=100, total=100)
    assert turn_usage(unpriced, counters(unpriced)).cost_usd is None  # type: ignore[union-attr]
    included = agent()
    included.session_cost_status = "included"  # a subscription's calls cost nothing more
    assert turn_usage(included, counters(included)).cost_usd == 0.0  # type: ignore[union-attr]


def rate_state(headers: dict[str, str], at: float) -> object:
    from agent import rate_limit_tracker

    state = rate_limit_tracker.parse_rate_limit_headers(headers, provider="custom")
    assert state is not None
    state.captured_at = at
    for bucket in (state.requests_min, state.requests_hour, state.tokens_min, state.tokens_hour):
        bucket.captured_at = at
    return state


def test_rate_limits_hermes_read_become_windows_with_when_each_resets() -> None:
    state = rate_state(
        {
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-remaining-requests": "59",
            "x-ratelimit-reset-requests": "12.5",
            "x-ratelimit-limit-tokens-1h": "1000000",
            "x-ratelimit-remaining-tokens-1h": "990000",
            "x-ratelimit-reset-tokens-1h": "1800",
        },
        at=1_700_000_000.0,
    )
    assert limits(state) == UsageLimitsEvent(
        provider="custom",
        requests_per_minute=RateLimitWindow(60, 59, 1_700_000_012_500),
        requests_per_hour=None,
        tokens_per_minute=None,
        tokens_per_hour=RateLimitWindow(1_000_000, 990_000, 1_700_001_800_000),
    )
    assert limits(None) is None


def test_a_watch_tells_each_rate_limit_state_hermes_captures_once_and_never_an_older_one() -> None:
    a = agent()
    a.state = rate_state({"x-ratelimit-limit-requests": "10"}, at=1.0)  # an earlier turn's
    a.get_rate_limit_state = lambda: a.state
    watch, sent = UsageWatch(a), []
    watch.report_limits(sent.append)
    assert sent == []
    a.state = rate_state(
        {"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "4"}, 2.0
    )
    watch.report_limits(sent.append)
    watch.report_limits(sent.append)
    assert [e.requests_per_minute for e in sent] == [RateLimitWindow(10, 4, 2000)]


def test_an_agent_that_reads_no_rate_limits_tells_none() -> None:
    sent: list[UsageLimitsEvent] = []
    UsageWatch(agent()).report_limits(sent.append)
    UsageWatch(object()).report_limits(sent.append)
    assert sent == []
