"""Head to head: the real-agent peers' latency and throughput, in alternating rounds.

Contract: sections register a ``Turn`` per contender in ``ctx.contenders``
(``HERMES_NEW``: hermes-stdio, a new session per turn, as tui_gateway is
driven; ``HERMES_WARM``: hermes-stdio, one warm session; ``IN_PROCESS``;
``TUI_GATEWAY``). ``head_to_head(ctx)`` then runs ``Config.rounds`` rounds.
In each round every contender streams one latency turn
(``real_latency_chunks`` chunks ``real_chunk_delay_ms`` apart), then one
throughput turn (``real_tp_chunks`` chunks, no delay); the order rotates
round by round. Latency = the LLM's flush of chunk i -> the host's receipt
of it; throughput = chunks / (last receipt - first flush).

It returns, per contender, the latency summary over every round's samples
and the median round's throughput, and, for each comparison of issue 3, the
ratio in every round and their median. For each process a contender names
in ``ctx.contender_pids`` (role -> pid) it adds the CPU time per delta of the
throughput turns (median; a new session's turn includes building its agent)
and the RSS after the rounds. The machine's speed drifts by tens of
percent over minutes here, so peers measured in sections minutes apart gave
ratios that moved run to run; turns of one round are seconds apart.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from .client import Stream
from .common import Ctx
from .stats import cpu_seconds, ratio, rss_mb, summary

Turn = Callable[[str], tuple[dict[int, int], Stream | None]]
"""Run one turn, calling ``ctx.settle(label)`` just before the prompt; return the
first receipt time of each token chunk, and the stream when there is a wire."""

HERMES_NEW = "hermes-stdio"
HERMES_WARM = "hermes-stdio warm"
IN_PROCESS = "in-process"
TUI_GATEWAY = "tui_gateway"
ORDER = (HERMES_NEW, TUI_GATEWAY, HERMES_WARM, IN_PROCESS)

# (name, numerator, denominator, figure): the comparisons issue 3 sets targets for.
COMPARISONS = (
    ("latency_p50_vs_tui_gateway", HERMES_NEW, TUI_GATEWAY, "p50"),
    ("latency_p99_vs_tui_gateway", HERMES_NEW, TUI_GATEWAY, "p99"),
    ("latency_p50_vs_in_process", HERMES_WARM, IN_PROCESS, "p50"),
    ("latency_p99_vs_in_process", HERMES_WARM, IN_PROCESS, "p99"),
    ("throughput_vs_in_process", HERMES_WARM, IN_PROCESS, "deltas_per_s"),
    ("throughput_vs_tui_gateway", HERMES_NEW, TUI_GATEWAY, "deltas_per_s"),
)


def latency_samples(ctx: Ctx, received: dict[int, int]) -> tuple[list[int], int]:
    """Chunk flush -> receipt times (ns) of the last armed turn, and how many were lost."""
    sent = ctx.sent()
    samples = [received[i] - t for i, t in sent.items() if i in received]
    return samples, len(sent) - len(samples)


def token_rate(ctx: Ctx, received: dict[int, int], expected: int) -> dict[str, Any]:
    sent = ctx.sent()
    if not received or not sent:
        return {"deltas": len(received), "lost": expected - len(received)}
    span = (max(received.values()) - min(sent.values())) / 1e9
    return {
        "deltas": len(received),
        "lost": expected - len(received),
        "deltas_per_s": round(len(received) / span) if span > 0 else None,
        "seconds": round(span, 3),
    }


def _rotated(names: list[str], k: int) -> list[str]:
    k %= len(names)
    return names[k:] + names[:k]


def head_to_head(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
    names = [n for n in ORDER if n in ctx.contenders]
    if not names:
        raise RuntimeError("no contender is live: run the in_process, tui_gateway or real section")
    samples: dict[str, list[int]] = {n: [] for n in names}
    lost = dict.fromkeys(names, 0)
    per_round: list[dict[str, dict[str, Any]]] = []
    orders: list[list[str]] = []
    for k in range(cfg.rounds):
        order = _rotated(names, k)
        orders.append(order)
        figures: dict[str, dict[str, Any]] = {n: {} for n in names}
        for name in order:
            ctx.arm_chunks(cfg.real_latency_chunks, cfg.real_chunk_delay_ms)
            received, _ = ctx.contenders[name](f"rounds.{k}.latency.{name}")
            got, missing = latency_samples(ctx, received)
            samples[name] += got
            lost[name] += missing
            figures[name].update(summary(got))
        for name in order:
            ctx.arm_chunks(cfg.real_tp_chunks, 0)
            pids = ctx.contender_pids.get(name, {})
            cpu0 = {role: cpu_seconds(pid) for role, pid in pids.items()}
            received, stream = ctx.contenders[name](f"rounds.{k}.throughput.{name}")
            rate = token_rate(ctx, received, cfg.real_tp_chunks)
            rate["cpu_us_per_delta"] = _cpu_per_delta(pids, cpu0, len(received))
            if stream is not None:
                rate["wire_bytes_per_frame"] = round(stream.wire_bytes / max(1, stream.frames), 1)
            figures[name]["throughput"] = rate
        per_round.append(figures)
    ctx.reply_ok()
    return {
        "rounds": cfg.rounds,
        "orders": orders,
        "contenders": {n: _contender(n, samples[n], lost[n], per_round) for n in names},
        "ratios": _ratios(per_round),
        "rss_after_mb": {
            n: {role: rss_mb(pid) for role, pid in pids.items()}
            for n, pids in ctx.contender_pids.items()
        },
    }


def _cpu_per_delta(
    pids: dict[str, int], before: dict[str, float | None], deltas: int
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for role, pid in pids.items():
        t0, t1 = before.get(role), cpu_seconds(pid)
        if t0 is None or t1 is None or not deltas:
            out[role] = None
        else:
            out[role] = round((t1 - t0) / deltas * 1e6, 1)
    return out


def _figure(figures: dict[str, Any], name: str) -> Any:
    if name == "deltas_per_s":
        return (figures.get("throughput") or {}).get(name)
    return figures.get(name)


def _contender(
    name: str, samples: list[int], lost: int, per_round: list[dict[str, dict[str, Any]]]
) -> dict[str, Any]:
    rates = [_figure(r[name], "deltas_per_s") for r in per_round]
    known = sorted(v for v in rates if v is not None)
    median_rate = known[(len(known) - 1) // 2] if known else None
    wire = [(r[name].get("throughput") or {}).get("wire_bytes_per_frame") for r in per_round]
    cpu: dict[str, list[float]] = {}
    for r in per_round:
        for role, us in ((r[name].get("throughput") or {}).get("cpu_us_per_delta") or {}).items():
            if us is not None:
                cpu.setdefault(role, []).append(us)
    cpu_median = {role: statistics.median(values) for role, values in cpu.items()}
    return {
        "latency": {**summary(samples), "lost": lost},
        "throughput": {
            "deltas_per_s": median_rate,
            "samples_per_s": rates,
            "lost": sum((r[name].get("throughput") or {}).get("lost", 0) for r in per_round),
            "wire_bytes_per_frame": next((w for w in wire if w is not None), None),
            "cpu_us_per_delta": cpu_median,
        },
    }


def _ratios(per_round: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, num, den, figure in COMPARISONS:
        values = [
            ratio(_figure(r[num], figure), _figure(r[den], figure))
            for r in per_round
            if num in r and den in r
        ]
        known = [v for v in values if v is not None]
        if known:
            out[label] = {"median": round(statistics.median(known), 3), "per_round": values}
    return out
