"""The readable table and the target verdicts, from the results dict.

Contract: ``targets(results)`` returns one row per target of issue 3
(``{name, value, target, ok}``; ``ok`` is None when a side is missing) and
``render(results)`` the text table printed by ``hermes-stdio bench``. Both
only read ``results``; a missing measurement shows as ``-``.
"""

from __future__ import annotations

from typing import Any

from .rounds import HERMES_NEW, HERMES_WARM, IN_PROCESS, TUI_GATEWAY
from .starts import PREWARM_IDLE_S
from .stats import ratio


def _get(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 10 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _check(name: str, value: float | None, target: str, ok: bool | None) -> dict[str, Any]:
    return {"name": name, "value": value, "target": target, "ok": ok}


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Real-agent ratios are the medians of per-round ratios (``rounds``)."""
    real, inproc = r.get("real") or {}, r.get("in_process") or {}
    syn, pipe, idle = r.get("synthetic") or {}, r.get("raw_pipe") or {}, r.get("idle") or {}
    ratios = _get(r, "rounds", "ratios") or {}
    rows = []
    for label, key, limit in (
        ("real latency p50 / tui_gateway", "latency_p50_vs_tui_gateway", 1.0),
        ("real latency p50 / in-process", "latency_p50_vs_in_process", 2.0),
        ("real latency p99 / tui_gateway", "latency_p99_vs_tui_gateway", 1.0),
        ("real latency p99 / in-process", "latency_p99_vs_in_process", 2.0),
    ):
        v = _get(ratios, key, "median")
        rows.append(_check(label, v, f"<= {limit}", None if v is None else v <= limit))
    v = _get(ratios, "throughput_vs_in_process", "median")
    rows.append(
        _check("real throughput / in-process", v, ">= 0.95", None if v is None else v >= 0.95)
    )
    v = ratio(
        _get(real, "throughput_pinned_warm", "deltas_per_s"),
        _get(inproc, "throughput_pinned", "deltas_per_s"),
    )
    rows.append(_check("  same, agent's process alone on CPU 0", v, "(context)", None))
    v = ratio(
        _get(syn, "throughput", "small_20B", "deltas_per_s"),
        _get(pipe, "throughput", "small_20B", "deltas_per_s"),
    )
    rows.append(
        _check("relay 20 B throughput / raw pipe", v, ">= 0.5", None if v is None else v >= 0.5)
    )
    small = _get(syn, "throughput", "small_20B", "wire_bytes_per_delta")
    large = _get(syn, "throughput", "large_4KiB", "wire_bytes_per_delta")
    over = None if small is None or large is None else round(large - 4096 - (small - 20), 1)
    rows.append(
        _check(
            "wire overhead 4 KiB minus 20 B (bytes)",
            over,
            "~0 (per-delta, not cumulative)",
            None if over is None else abs(over) < 64,
        )
    )
    v = _get(syn, "rtt_supervisor_status", "p50")
    rows.append(_check("supervisor/status p50 ms", v, "<= 0.08", None if v is None else v <= 0.08))
    v = _get(syn, "rtt_session_status", "p50")
    rows.append(_check("session/status p50 ms", v, "<= 0.3", None if v is None else v <= 0.3))
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
    v = _get(real, "new_profile_ready", "median_ms")
    rows.append(
        _check(
            "stretch: new profile's worker ready ms",
            v,
            "<= 150",
            None if v is None else v <= 150,
        )
    )
    v = _get(real, "memory", "worker_growth_mb")
    n = _get(real, "memory", "short_runs")
    rows.append(
        _check(f"worker RSS growth over {n} runs MB", v, "< 5", None if v is None else v < 5)
    )
    v = _get(syn, "memory", "growth_mb")
    rows.append(
        _check(
            f"synthetic worker RSS growth over {n} runs MB (stdio layer only)",
            v,
            "< 5",
            None if v is None else v < 5,
        )
    )
    v = _get(inproc, "memory", "growth_mb")
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
            (_get(bp, "rss_mb_pause_end", k) or 0) - (_get(bp, "rss_mb_pause_start", k) or 0)
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
    v = ratio(_get(syn, "rtt_supervisor_status", "p50"), _get(pipe, "rtt_echo", "p50"))
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


def _lat(d: Any) -> str:
    if not isinstance(d, dict) or not d.get("n"):
        return "-"
    return f"{d['p50']:.3f} / {d['p99']:.3f} / {d['max']:.2f}"


def _tp(d: Any) -> str:
    if not isinstance(d, dict) or d.get("deltas_per_s") is None:
        return "-"
    mb = f", {d['mb_per_s']:.2f} MB/s" if d.get("mb_per_s") is not None else ""
    lost = f", lost {d['lost']}" if d.get("lost") else ""
    return f"{d['deltas_per_s']:,}/s{mb}{lost}"


def render(r: dict[str, Any]) -> str:
    real, inproc, tui = r.get("real") or {}, r.get("in_process") or {}, r.get("tui_gateway") or {}
    spawned = r.get("spawned") or {}
    h2h, rounds = _get(r, "rounds", "contenders") or {}, _get(r, "rounds", "rounds")
    tui_rss = _get(r, "rounds", "rss_after_mb", TUI_GATEWAY) or tui.get("rss_after_runs_mb")
    syn, pipe, idle = r.get("synthetic") or {}, r.get("raw_pipe") or {}, r.get("idle") or {}
    n_s = _get(r, "config", "sessions")
    rows: list[tuple[str, str, str, str, str]] = [
        (
            "measurement (ms: p50 / p99 / max)",
            "hermes-stdio",
            "raw pipe",
            "in-process",
            "tui_gateway",
        ),
        (
            "request RTT supervisor/status",
            _lat(syn.get("rtt_supervisor_status")),
            _lat(pipe.get("rtt_echo")),
            "",
            _lat(tui.get("rtt_terminal_resize")),
        ),
        ("request RTT session/status (worker)", _lat(syn.get("rtt_session_status")), "", "", ""),
        (
            "synthetic event latency, 1 session",
            _lat(syn.get("latency_1")),
            _lat(pipe.get("latency_1")),
            "",
            "",
        ),
        (
            f"synthetic event latency, {n_s} sessions/2 prof",
            _lat(syn.get(f"latency_{n_s}")),
            "",
            "",
            "",
        ),
        (
            "synthetic throughput 20 B",
            _tp(_get(syn, "throughput", "small_20B")),
            _tp(_get(pipe, "throughput", "small_20B")),
            "",
            "",
        ),
        (
            "synthetic throughput 4 KiB",
            _tp(_get(syn, "throughput", "large_4KiB")),
            _tp(_get(pipe, "throughput", "large_4KiB")),
            "",
            "",
        ),
        (
            f"real agent chunk -> delta latency, new sessions (rounds: {rounds})",
            _lat(_get(h2h, HERMES_NEW, "latency")),
            "",
            "",
            _lat(_get(h2h, TUI_GATEWAY, "latency")),
        ),
        (
            "  same, one warm session",
            _lat(_get(h2h, HERMES_WARM, "latency")),
            "",
            _lat(_get(h2h, IN_PROCESS, "latency")),
            "",
        ),
        (
            f"real agent throughput, new sessions (rounds: {rounds})",
            _tp(_get(h2h, HERMES_NEW, "throughput")),
            "",
            "",
            _tp(_get(h2h, TUI_GATEWAY, "throughput")),
        ),
        (
            "  same, one warm session",
            _tp(_get(h2h, HERMES_WARM, "throughput")),
            "",
            _tp(_get(h2h, IN_PROCESS, "throughput")),
            "",
        ),
        (
            "  same, agent's process alone on CPU 0",
            _tp(real.get("throughput_pinned_warm")),
            "",
            _tp(inproc.get("throughput_pinned")),
            "",
        ),
        (
            "spawn -> initialize / ready (ms)",
            _fmt(real.get("initialize_ms")),
            "",
            "",
            _fmt(tui.get("ready_ms")),
        ),
        (
            "cold run/start -> first delta (ms)",
            _fmt(real.get("cold_first_delta_ms")),
            "",
            "",
            _fmt(tui.get("cold_first_delta_ms")),
        ),
        (
            "  same, every worker spawned cold (ms)",
            _fmt(spawned.get("cold_first_delta_ms")),
            "",
            "",
            "",
        ),
        (
            f"prewarmed worker, idle {PREWARM_IDLE_S:g} s, first run (ms)",
            _fmt(spawned.get("prewarmed_first_delta_ms")),
            "",
            "",
            "",
        ),
        (
            "warm worker, new session (ms)",
            _fmt(real.get("warm_worker_first_delta_ms")),
            "",
            "",
            _fmt(tui.get("warm_first_delta_ms")),
        ),
        ("warm session (ms)", _fmt(real.get("warm_session_first_delta_ms")), "", "", ""),
        (
            f"new profile, template ready: {_fmt(_get(real, 'start_modes', 'bench2'))},"
            f" median of {len(real.get('new_profile_first_delta_ms_samples') or [])} (ms)",
            _fmt(real.get("cold_second_profile_first_delta_ms")),
            "",
            "",
            "",
        ),
        (
            "  same, spawned cold (ms)",
            _fmt(spawned.get("cold_second_profile_first_delta_ms")),
            "",
            "",
            "",
        ),
        (
            "new profile's worker ready (worker/restart), forked (ms)",
            _fmt(_get(real, "new_profile_ready", "median_ms")),
            "",
            "",
            "",
        ),
        (
            "  same, spawned cold (ms)",
            _fmt(_get(spawned, "new_profile_ready", "median_ms")),
            "",
            "",
            "",
        ),
        (
            "worker template: preload ms / modules / RSS MB",
            f"{_fmt(_get(real, 'template', 'preloadMs'))} / "
            f"{_fmt(_get(real, 'template', 'modules'))} / "
            f"{_fmt(_get(real, 'memory', 'template_mb'))}",
            "",
            "",
            "",
        ),
        (
            "new profile's worker PSS, forked / spawned (MB)",
            f"{_fmt(_get(real, 'memory', 'worker_pss_mb', 'bench2'))} / "
            f"{_fmt(_get(spawned, 'worker_pss_mb', 'bench2'))}",
            "",
            "",
            "",
        ),
    ]
    mem = real.get("memory") or {}
    rows += [
        (
            "RSS supervisor start / 1 run / N runs (MB)",
            f"{_fmt(mem.get('supervisor_start_mb'))} / {_fmt(mem.get('supervisor_after_1_run_mb'))}"
            f" / {_fmt(mem.get('supervisor_after_n_mb'))}",
            "",
            _fmt(inproc.get("rss_mb")),
            f"{_fmt(tui.get('rss_start_mb'))} / {_fmt(tui_rss)}",
        ),
        (
            f"RSS worker 1 run / {_fmt(mem.get('short_runs'))} short runs after it (MB)",
            f"{_fmt(mem.get('worker_after_short_run_mb'))} / {_fmt(mem.get('worker_after_n_mb'))}"
            f" (synthetic {_fmt(_get(syn, 'memory', 'after_1_mb'))}"
            f" / {_fmt(_get(syn, 'memory', 'after_n_mb'))})",
            "",
            f"{_fmt(_get(inproc, 'memory', 'after_1_mb'))}"
            f" / {_fmt(_get(inproc, 'memory', 'after_n_mb'))}",
            "",
        ),
        (
            f"idle CPU s over {_fmt(idle.get('seconds'))} s",
            _fmt(idle.get("cpu_s")),
            "",
            "",
            _fmt(_get(idle, "tui_gateway", "cpu_s")),
        ),
        (
            "idle voluntary ctx switches (all threads)",
            _fmt(idle.get("voluntary")),
            "",
            "",
            _fmt(_get(idle, "tui_gateway", "voluntary")),
        ),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    lines.append("targets (issue 3)")
    for t in targets(r):
        mark = {True: "ok  ", False: "MISS", None: "n/a "}[t["ok"]]
        lines.append(f"  {mark} {t['name']}: {_fmt(t['value'])} (target {t['target']})")
    for name, err in (r.get("errors") or {}).items():
        lines.append(f"  ERROR in {name}: {err}")
    return "\n".join(lines)
