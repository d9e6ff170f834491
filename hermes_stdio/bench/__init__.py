"""``hermes-stdio bench``: every benchmark of issue 3, side by side, in one run.

Contract: ``main(argv)`` builds a temp Hermes home (two profiles) wired to a
``ScriptedLLM`` on 127.0.0.1 and the offline environment, then measures, in
order: the raw-pipe floor, the supervisor with synthetic workers, the real
agent in-process, hermes' ``tui_gateway`` and hermes-stdio with the real
agent (cold start, memory over short runs), then those three peers' latency
and throughput head to head in alternating rounds, the round trips of every
peer (the raw pipe too) in alternating rounds, and finally idle CPU and
wake-ups of hermes-stdio's processes and tui_gateway over the same window,
after a turn in which hermes-stdio's real worker ran the terminal and file
tools.
It prints a table, writes the JSON to ``--out`` and returns 0, or 1 when a
measurement failed (its error is in the JSON under ``errors``; the others
still run). Targets missed are reported, not failures. Before each timed
measurement it waits, bounded, for the machine to go quiet (a peer's helper
process still importing would skew it); the waits are in the JSON under
``settled_s``. First it byte-compiles hermes-stdio's own package, as
installing it does (``pip`` compiles at install; hermes-agent and its
``tui_gateway`` peer are compiled so), since an editable checkout run under
``PYTHONDONTWRITEBYTECODE`` would otherwise parse every module on each start
(JSON ``bytecode``).

Options: ``--quick`` (about a minute), ``--tiny`` (smoke test),
``--idle-seconds``, ``--short-runs``, ``--out``, ``--only`` (comma list of
raw_pipe,synthetic,backpressure,in_process,tui_gateway,spawned,real,rounds,
rtt,idle; ``rounds`` compares whichever of in_process, tui_gateway and real
ran, ``rtt`` whichever of raw_pipe, real and tui_gateway).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from .agent import Live, in_process, real_supervisor, tools_turn, tui_gateway
from .backpressure import backpressure
from .common import Config, Ctx
from .relay import raw_pipe, synthetic
from .report import render
from .rounds import head_to_head
from .rtt import rtt_rounds
from .starts import spawned_starts
from .stats import cpu_seconds, ctx_switches
from .targets import targets

SECTIONS = (
    "raw_pipe",
    "synthetic",
    "backpressure",
    "in_process",
    "tui_gateway",
    "spawned",
    "real",
    "rounds",
    "rtt",
    "idle",
)
SETTLE_S = 2.0


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hermes-stdio bench", description=__doc__.splitlines()[0])
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="short run (about a minute)")
    size.add_argument("--tiny", action="store_true", help="smoke test sizes (seconds)")
    p.add_argument("--out", default="bench-results/bench.json", help="JSON output path")
    p.add_argument("--idle-seconds", type=float, default=None)
    p.add_argument("--short-runs", type=int, default=None, help="runs for the memory test")
    p.add_argument("--only", default=",".join(SECTIONS), help="comma list of sections")
    p.add_argument("--keep-temp", action="store_true", help="keep the temp home and logs")
    if argv[:1] == ["--"]:  # ``hermes-stdio bench -- --quick`` (argparse REMAINDER quirk)
        argv = argv[1:]
    return p.parse_args(argv)


def idle(ctx: Ctx, lives: dict[str, Live], seconds: float) -> dict[str, Any]:
    """CPU seconds and context switches over a window with no requests in flight,
    after a turn that used tools (``tools_turn``) in hermes-stdio's real worker.

    The window is a plain wait: nothing is synchronised by it, it is what is measured.
    """
    before_window = tools_turn(ctx, lives["real"]) if "real" in lives else None
    time.sleep(SETTLE_S)  # let post-run work finish (title generation, DB writes)
    before = {
        (name, pid): (cpu_seconds(pid), ctx_switches(pid))
        for name, live in lives.items()
        for pid in live.pids
    }
    t0 = time.monotonic()
    time.sleep(seconds)
    span = time.monotonic() - t0
    per: dict[str, dict[str, Any]] = {}
    for (name, pid), (cpu0, ctx0) in before.items():
        cpu1, ctx1 = cpu_seconds(pid), ctx_switches(pid)
        if cpu0 is None or cpu1 is None or ctx0 is None or ctx1 is None:
            continue
        entry = per.setdefault(name, {"cpu_s": 0.0, "voluntary": 0, "processes": {}})
        vol = ctx1["voluntary"] - ctx0["voluntary"]
        entry["cpu_s"] = round(entry["cpu_s"] + cpu1 - cpu0, 3)
        entry["voluntary"] += vol
        entry["processes"][str(pid)] = {
            "cpu_s": round(cpu1 - cpu0, 3),
            "voluntary": vol,
            "involuntary": ctx1["involuntary"] - ctx0["involuntary"],
            "threads": ctx1["threads"],
            "wakeups_per_min": round(vol / span * 60, 2),
        }
    ours = per.get("real", {})
    procs = ours.get("processes", {})
    return {
        "seconds": round(span, 2),
        "settle_s": SETTLE_S,
        "before_window": before_window,
        "cpu_s": ours.get("cpu_s"),
        "cpu_s_per_30s": round(ours["cpu_s"] * 30 / span, 4) if ours else None,
        "voluntary": ours.get("voluntary"),
        "wakeups_per_min_max": max((p["wakeups_per_min"] for p in procs.values()), default=None),
        "processes": procs,
        "tui_gateway": per.get("tui_gateway"),
    }


def main(argv: list[str]) -> int:
    args = _args(argv)
    config = Config.tiny() if args.tiny else Config.quick_() if args.quick else Config.full()
    if args.idle_seconds is not None:
        config.idle_seconds = args.idle_seconds
    if args.short_runs is not None:
        config.short_runs = args.short_runs
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    results: dict[str, Any] = {
        "config": vars(config),
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
        "errors": {},
    }
    package = Path(__file__).resolve().parents[1]
    results["bytecode"] = {
        "package": str(package),
        "compiled": compileall.compile_dir(package, quiet=1),
    }
    root = Path(tempfile.mkdtemp(prefix="hermes-stdio-bench-"))
    ctx = Ctx(root, config)
    lives: dict[str, Live] = {}
    started = time.monotonic()

    def section(name: str, fn: Any) -> Any:
        if name not in only:
            return None
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        ctx.settle(f"{name}.start")  # the previous section's processes may still be busy
        t0 = time.monotonic()
        try:
            value = fn(ctx)
        except Exception as exc:
            results["errors"][name] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            return None
        finally:
            print(f"bench: {name} took {time.monotonic() - t0:.1f}s", file=sys.stderr, flush=True)
        if isinstance(value, Live):
            lives[name] = value
            results[name] = value.result
        else:
            results[name] = value
        return value

    try:
        section("raw_pipe", raw_pipe)
        section("synthetic", synthetic)
        section("backpressure", backpressure)
        section("in_process", in_process)
        section("tui_gateway", tui_gateway)
        section("spawned", spawned_starts)
        section("real", real_supervisor)
        section("rounds", head_to_head)
        section("rtt", rtt_rounds)
        section("idle", lambda ctx: idle(ctx, lives, config.idle_seconds))
    finally:
        for live in lives.values():
            live.client.close()
        ctx.close()
        if args.keep_temp:
            print(f"bench: temp home and logs kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    results["settled_s"] = ctx.settled
    results["seconds"] = round(time.monotonic() - started, 1)
    results["targets"] = targets(results)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(render(results))
    print(f"\nJSON written to {out}")
    return 1 if results["errors"] else 0
