"""A run's token usage from hermes' per-session counters: the difference over the run,
the window's fill, and nothing for an agent that keeps no counters."""

from __future__ import annotations

from types import SimpleNamespace

from hermes_stdio.protocol.usage import TokenUsage
from hermes_stdio.worker.usage import UsageWatch, counters, turn_usage


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
