"""Request round trips of every peer, head to head in alternating rounds.

Contract: sections register an ``RttPeer`` in ``ctx.rtt_peers`` (``RAW_PIPE``:
the echo process; ``SUPERVISOR_STATUS`` and ``SESSION_STATUS``: hermes-stdio
with its two synthetic workers, as the section timed them, the latter crossing
to a worker (the supervisor's answer grows with its workers, about 5 µs of
CPU each); ``TUI_GATEWAY``: its cheapest method, ``terminal.resize``). ``rtt_rounds(ctx)`` then runs
``Config.rounds`` rounds; in each, in an order rotated round by round, every
peer answers ``Config.rtt_round_calls`` sequential requests (after 50 not
counted) twice: placed as the scheduler likes (``free``), then with the bench
and every process of the peer on CPU 0 (``same_cpu``).

Why both: on this machine a round trip between processes on one CPU costs
about half of one between two CPUs (waking an idle CPU is slow in a VM), and
which one a peer gets can change from process to process and minute to
minute; so absolute figures, and ratios of peers measured apart, moved by 2x
between runs. ``same_cpu`` takes the placement away, leaving each peer's own
work and its hops. It returns, per peer and placement, the p50 of every round
and their median, and for each comparison the ratio in every round and the
median ratio.
"""

from __future__ import annotations

import contextlib
import os
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .common import Ctx, set_affinity
from .stats import ratio, summary

WARMUP = 50
RAW_PIPE = "raw pipe echo"
SUPERVISOR_STATUS = "supervisor/status"
SESSION_STATUS = "session/status"
TUI_GATEWAY = "tui_gateway terminal.resize"
ORDER = (RAW_PIPE, SUPERVISOR_STATUS, SESSION_STATUS, TUI_GATEWAY)
PLACEMENTS = ("free", "same_cpu")

COMPARISONS = (
    ("supervisor_status_vs_tui_gateway", SUPERVISOR_STATUS, TUI_GATEWAY),
    ("supervisor_status_vs_raw_pipe", SUPERVISOR_STATUS, RAW_PIPE),
    ("session_status_vs_raw_pipe", SESSION_STATUS, RAW_PIPE),
)


@dataclass
class RttPeer:
    round_trips: Callable[[int], list[int]]
    """``n`` sequential requests; the nanoseconds of each."""
    pids: list[int] = field(default_factory=list)
    """Every process a request crosses (pinned together for ``same_cpu``)."""


@contextlib.contextmanager
def _same_cpu(pids: list[int]) -> Iterator[None]:
    every = set(range(os.cpu_count() or 1))
    procs = [os.getpid(), *pids]
    try:
        set_affinity(procs, {0})
        yield
    finally:
        set_affinity(procs, every)


def _p50_ms(peer: RttPeer, calls: int) -> float | None:
    return summary(peer.round_trips(WARMUP + calls)[WARMUP:]).get("p50")


def rtt_rounds(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
    names = [n for n in ORDER if n in ctx.rtt_peers]
    if not names:
        raise RuntimeError("no peer is live: run the raw_pipe, real or tui_gateway section")
    per_round: list[dict[str, dict[str, float | None]]] = []
    orders: list[list[str]] = []
    for k in range(cfg.rounds):
        order = names[k % len(names) :] + names[: k % len(names)]
        orders.append(order)
        figures: dict[str, dict[str, float | None]] = {n: {} for n in names}
        for name in order:
            peer = ctx.rtt_peers[name]
            ctx.settle(f"rtt.{k}.{name}")
            figures[name]["free"] = _p50_ms(peer, cfg.rtt_round_calls)
            with _same_cpu(peer.pids):
                figures[name]["same_cpu"] = _p50_ms(peer, cfg.rtt_round_calls)
        per_round.append(figures)
    peers = {n: {p: _median_of([r[n][p] for r in per_round]) for p in PLACEMENTS} for n in names}
    ratios: dict[str, Any] = {}
    for label, num, den in COMPARISONS:
        if num in names and den in names:
            ratios[label] = {
                p: _median_of([ratio(r[num][p], r[den][p]) for r in per_round]) for p in PLACEMENTS
            }
    return {
        "rounds": cfg.rounds,
        "calls": cfg.rtt_round_calls,
        "orders": orders,
        "peers": peers,
        "ratios": ratios,
    }


def _median_of(values: list[float | None]) -> dict[str, Any]:
    known = [v for v in values if v is not None]
    return {
        "median": round(statistics.median(known), 4) if known else None,
        "per_round": values,
    }
