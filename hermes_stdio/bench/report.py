"""The readable table, from the bench's results dict.

Contract: ``render(results)`` gives the text table printed by ``hermes-stdio
bench``, then the verdicts of ``targets``. It only reads ``results``; a
missing measurement shows as ``-``.
"""

from __future__ import annotations

from typing import Any

from . import rtt as rtt_names
from .rounds import HERMES_NEW, HERMES_WARM, IN_PROCESS, TUI_GATEWAY
from .starts import PREWARM_IDLE_S
from .targets import get, targets


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 10 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


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


def _cpu(d: Any, *roles: str) -> str:
    if not isinstance(d, dict) or any(d.get(role) is None for role in roles):
        return "-"
    return " + ".join(f"{d[role]:.1f}" for role in roles)


def _placed(peers: Any, name: str) -> str:
    """A peer's round-trip p50 in ``rtt`` rounds: placed freely / all on one CPU."""
    free, same = get(peers, name, "free", "median"), get(peers, name, "same_cpu", "median")
    if free is None and same is None:
        return "-"
    return f"{_fmt(free)} / {_fmt(same)}"


def render(r: dict[str, Any]) -> str:
    real, inproc, tui = r.get("real") or {}, r.get("in_process") or {}, r.get("tui_gateway") or {}
    spawned = r.get("spawned") or {}
    # The first of each section's new profiles (each has its own: see ``common.Ctx``).
    new = (real.get("new_profiles") or [None])[0]
    spawned_new = (spawned.get("new_profiles") or [None])[0]
    h2h, rounds = get(r, "rounds", "contenders") or {}, get(r, "rounds", "rounds")
    tui_rss = get(r, "rounds", "rss_after_mb", TUI_GATEWAY, "gateway") or tui.get(
        "rss_after_runs_mb"
    )
    syn, pipe, idle = r.get("synthetic") or {}, r.get("raw_pipe") or {}, r.get("idle") or {}
    n_s = get(r, "config", "sessions")
    rtt = get(r, "rtt", "peers") or {}
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
            f"  in rounds (p50; free / same CPU; rounds: {get(r, 'rtt', 'rounds')})",
            _placed(rtt, rtt_names.SUPERVISOR_STATUS),
            _placed(rtt, rtt_names.RAW_PIPE),
            "",
            _placed(rtt, rtt_names.TUI_GATEWAY),
        ),
        ("  session/status, in rounds", _placed(rtt, rtt_names.SESSION_STATUS), "", "", ""),
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
            f"  1 session, agent busy {get(syn, 'busy_stream', 'work_us')} us per delta",
            _lat(syn.get("busy_stream")),
            "",
            "",
            "",
        ),
        (
            "synthetic throughput 20 B",
            _tp(get(syn, "throughput", "small_20B")),
            _tp(get(pipe, "throughput", "small_20B")),
            "",
            "",
        ),
        (
            "synthetic throughput 4 KiB",
            _tp(get(syn, "throughput", "large_4KiB")),
            _tp(get(pipe, "throughput", "large_4KiB")),
            "",
            "",
        ),
        (
            f"real agent chunk -> delta latency, new sessions (rounds: {rounds})",
            _lat(get(h2h, HERMES_NEW, "latency")),
            "",
            "",
            _lat(get(h2h, TUI_GATEWAY, "latency")),
        ),
        (
            "  same, one warm session",
            _lat(get(h2h, HERMES_WARM, "latency")),
            "",
            _lat(get(h2h, IN_PROCESS, "latency")),
            "",
        ),
        (
            f"real agent throughput, new sessions (rounds: {rounds})",
            _tp(get(h2h, HERMES_NEW, "throughput")),
            "",
            "",
            _tp(get(h2h, TUI_GATEWAY, "throughput")),
        ),
        (
            "  same, one warm session",
            _tp(get(h2h, HERMES_WARM, "throughput")),
            "",
            _tp(get(h2h, IN_PROCESS, "throughput")),
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
            "real agent CPU us per delta, warm (worker + supervisor)",
            _cpu(get(h2h, HERMES_WARM, "throughput", "cpu_us_per_delta"), "worker", "supervisor"),
            "",
            _cpu(get(h2h, IN_PROCESS, "throughput", "cpu_us_per_delta"), "agent"),
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
            f"new profile, template ready: {_fmt(get(real, 'start_modes', new))},"
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
            "new profile's worker ready (worker/restart), forked: hermes imported (ms)",
            _fmt(get(real, "new_profile_ready", "median_ms")),
            "",
            "",
            "",
        ),
        (
            "  same, spawned cold: ready before it imports hermes (ms)",
            _fmt(get(spawned, "new_profile_ready", "median_ms")),
            "",
            "",
            "",
        ),
        (
            "  same, forked, profile never used (hermes creates state.db) (ms)",
            _fmt(get(real, "fresh_profile_ready", "median_ms")),
            "",
            "",
            "",
        ),
        (
            "worker template: preload ms / modules / RSS MB",
            f"{_fmt(get(real, 'template', 'preloadMs'))} / "
            f"{_fmt(get(real, 'template', 'modules'))} / "
            f"{_fmt(get(real, 'memory', 'template_mb'))}",
            "",
            "",
            "",
        ),
        (
            "new profile's worker PSS, forked / spawned (MB)",
            f"{_fmt(get(real, 'memory', 'worker_pss_mb', new))} / "
            f"{_fmt(get(spawned, 'worker_pss_mb', spawned_new))}",
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
            f" (synthetic {_fmt(get(syn, 'memory', 'after_1_mb'))}"
            f" / {_fmt(get(syn, 'memory', 'after_n_mb'))})",
            "",
            f"{_fmt(get(inproc, 'memory', 'after_1_mb'))}"
            f" / {_fmt(get(inproc, 'memory', 'after_n_mb'))}",
            "",
        ),
        (
            f"idle CPU s over {_fmt(idle.get('seconds'))} s",
            _fmt(idle.get("cpu_s")),
            "",
            "",
            _fmt(get(idle, "tui_gateway", "cpu_s")),
        ),
        (
            "idle voluntary ctx switches (all threads)",
            _fmt(idle.get("voluntary")),
            "",
            "",
            _fmt(get(idle, "tui_gateway", "voluntary")),
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
