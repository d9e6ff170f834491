"""The target verdicts of issue 3, from the bench's results dict.

Contract: ``targets(results)`` returns one row per target of issue 3
(``{name, value, target, ok}``; ``ok`` is None when a side is missing, or for
a row given as context). It only reads ``results``. ``get(d, *path)`` reads a
nested value, None where any key is missing.
"""

from __future__ import annotations

from typing import Any

from .stats import ratio


def get(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _check(name: str, value: float | None, target: str, ok: bool | None) -> dict[str, Any]:
    return {"name": name, "value": value, "target": target, "ok": ok}


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Real-agent ratios are the medians of per-round ratios (``rounds``)."""
    real, inproc = r.get("real") or {}, r.get("in_process") or {}
    syn, pipe, idle = r.get("synthetic") or {}, r.get("raw_pipe") or {}, r.get("idle") or {}
    ratios = get(r, "rounds", "ratios") or {}
    rows = []
    for label, key, limit in (
        ("real latency p50 / tui_gateway", "latency_p50_vs_tui_gateway", 1.0),
        ("real latency p50 / in-process", "latency_p50_vs_in_process", 2.0),
        ("real latency p99 / tui_gateway", "latency_p99_vs_tui_gateway", 1.0),
        ("real latency p99 / in-process", "latency_p99_vs_in_process", 2.0),
    ):
        v = get(ratios, key, "median")
        rows.append(_check(label, v, f"<= {limit}", None if v is None else v <= limit))
    v = get(ratios, "throughput_vs_in_process", "median")
    rows.append(
        _check("real throughput / in-process", v, ">= 0.95", None if v is None else v >= 0.95)
    )
    v = ratio(
        get(real, "throughput_pinned_warm", "deltas_per_s"),
        get(inproc, "throughput_pinned", "deltas_per_s"),
    )
    rows.append(_check("  same, agent's process alone on CPU 0", v, "(context)", None))
    v = ratio(
        get(syn, "throughput", "small_20B", "deltas_per_s"),
        get(pipe, "throughput", "small_20B", "deltas_per_s"),
    )
    rows.append(
        _check("relay 20 B throughput / raw pipe", v, ">= 0.5", None if v is None else v >= 0.5)
    )
    small = get(syn, "throughput", "small_20B", "wire_bytes_per_delta")
    large = get(syn, "throughput", "large_4KiB", "wire_bytes_per_delta")
    over = None if small is None or large is None else round(large - 4096 - (small - 20), 1)
    rows.append(
        _check(
            "wire overhead 4 KiB minus 20 B (bytes)",
            over,
            "~0 (per-delta, not cumulative)",
            None if over is None else abs(over) < 64,
        )
    )
    v = get(syn, "busy_stream", "max")
    rows.append(
        _check("busy agent's flood: longest a delta waited ms", v, "(context: protocol.md)", None)
    )
    # Round trips: the rtt rounds' median where they ran (peers timed side by side),
    # else the synthetic section's one series.
    peers = get(r, "rtt", "peers") or {}
    for label, peer, key, limit in (
        ("supervisor/status p50 ms", "supervisor/status", "rtt_supervisor_status", 0.08),
        ("session/status p50 ms", "session/status", "rtt_session_status", 0.3),
    ):
        v = get(peers, peer, "free", "median")
        if v is None:
            v = get(syn, key, "p50")
        rows.append(_check(label, v, f"<= {limit}", None if v is None else v <= limit))
    rtt_ratios = get(r, "rtt", "ratios") or {}
    for label, key in (
        ("  supervisor/status / tui_gateway's terminal.resize", "supervisor_status_vs_tui_gateway"),
        ("  supervisor/status / raw-pipe echo", "supervisor_status_vs_raw_pipe"),
        ("  session/status / raw-pipe echo", "session_status_vs_raw_pipe"),
    ):
        for placement, name in (("free", "free"), ("same_cpu", "same CPU")):
            v = get(rtt_ratios, key, placement, "median")
            if v is not None:
                rows.append(_check(f"{label}, {name}", v, "(context)", None))
    v = real.get("initialize_ms")
    rows.append(_check("initialize after spawn ms", v, "<= 100", None if v is None else v <= 100))
    v = real.get("cold_first_delta_ms")
    rows.append(
        _check("cold run/start -> first delta ms", v, "<= 1300", None if v is None else v <= 1300)
    )
    v = real.get("cold_second_profile_first_delta_ms")
    rows.append(
        _check(
            "stretch: new profile, template ready: first delta ms",
            v,
            "<= 300",
            None if v is None else v <= 300,
        )
    )
    v = get(real, "new_profile_ready", "median_ms")
    rows.append(
        _check(
            "stretch: new profile's worker ready ms",
            v,
            "<= 150",
            None if v is None else v <= 150,
        )
    )
    v = get(real, "fresh_profile_ready", "median_ms")
    rows.append(
        _check("  same, profile never used (hermes creates state.db)", v, "(context)", None)
    )
    v = get(real, "memory", "worker_growth_mb")
    n = get(real, "memory", "short_runs")
    rows.append(
        _check(f"worker RSS growth over {n} runs MB", v, "< 5", None if v is None else v < 5)
    )
    v = get(syn, "memory", "growth_mb")
    rows.append(
        _check(
            f"synthetic worker RSS growth over {n} runs MB (stdio layer only)",
            v,
            "< 5",
            None if v is None else v < 5,
        )
    )
    v = get(inproc, "memory", "growth_mb")
    rows.append(_check(f"in-process agent RSS growth over {n} runs MB", v, "(context)", None))
    bp = r.get("backpressure") or {}
    if bp:
        ok = bp.get("lost") == 0 and bp.get("seq_gapless") and bp.get("completed_count") == 1
        rows.append(
            _check(
                f"host paused {bp.get('pause_s')} s: deltas lost",
                bp.get("lost"),
                "0, seq gapless, one run/completed",
                bool(ok),
            )
        )
        grow = [
            (get(bp, "rss_mb_pause_end", k) or 0) - (get(bp, "rss_mb_pause_start", k) or 0)
            for k in ("supervisor", "worker")
        ]
        rows.append(
            _check(
                "host paused: max RSS growth MB (sup, worker)",
                round(max(grow), 1),
                "bounded (< 20)",
                max(grow) < 20,
            )
        )
    if not rtt_ratios:  # the sections' own series, timed minutes apart
        v = ratio(get(syn, "rtt_supervisor_status", "p50"), get(pipe, "rtt_echo", "p50"))
        rows.append(_check("supervisor/status p50 / raw-pipe echo p50", v, "(context)", None))
    v = idle.get("cpu_s_per_30s")
    rows.append(
        _check("idle CPU s per 30 s (sup+workers)", v, "<= 0.01", None if v is None else v <= 0.01)
    )
    v = idle.get("wakeups_per_min_max")
    rows.append(
        _check("idle wake-ups/min (busiest process)", v, "<= 1", None if v is None else v <= 1)
    )
    return rows
