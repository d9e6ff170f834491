"""Smoke test of ``hermes-stdio bench``: tiny sizes, JSON shape only.

No timing assertions: goals are measured by the bench, never by tests.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.worker.state import Session
from hermes_stdio.worker.synthetic import (
    STAMP_BYTES,
    SyntheticAdapter,
    format_stamp,
    parse_params,
    parse_stamps,
)

pytestmark = pytest.mark.bench_smoke


def test_stamps_round_trip_and_coalesce() -> None:
    one, two = format_stamp(123, 32), format_stamp(456, 32)
    assert len(one) == 32 and len(format_stamp(7, 5)) == STAMP_BYTES
    assert parse_stamps(one + two, 32) == [123, 456]
    assert parse_params("bench count=3 size=64 interval_ms=2") == {
        "count": 3,
        "size": 64,
        "interval_ms": 2,
        "work_us": 0,
    }
    assert parse_params("bench count=3 work_us=130") == {
        "count": 3,
        "size": 20,
        "interval_ms": 0,
        "work_us": 130,
    }
    assert parse_params("hello") is None


class Deltas:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def delta(self, text: str) -> None:
        self.texts.append(text)

    def event(self, type_: str, **fields: Any) -> None:
        return None


def test_a_busy_synthetic_agent_computes_for_work_us_before_each_delta() -> None:
    adapter, sink = SyntheticAdapter(), Deltas()
    session = Session("sess_busy", "default")
    agent = adapter.build(session, sink)
    outcome = adapter.run_turn(agent, session, "bench count=4 work_us=3000", lambda: False)
    assert not outcome.interrupted
    stamps = [s for text in sink.texts for s in parse_stamps(text, 20)]
    assert len(stamps) == 4
    assert all(b - a >= 3_000_000 for a, b in itertools.pairwise(stamps))  # ns, one clock


def run_bench(tmp_path: Path, sections: str, *args: str) -> tuple[str, dict[str, Any]]:
    """``hermes-stdio bench --tiny`` over ``sections``: its table and its JSON."""
    out = tmp_path / "bench.json"
    command = [sys.executable, "-m", "hermes_stdio", "bench", "--tiny", "--only", sections]
    proc = subprocess.run(
        [*command, *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    data: dict[str, Any] = json.loads(out.read_text())
    assert data["errors"] == {}
    return proc.stdout, data


def test_bench_command_writes_json(tmp_path: Path) -> None:
    table, data = run_bench(
        tmp_path, "raw_pipe,synthetic,backpressure,idle", "--idle-seconds", "0.2"
    )
    assert "targets (issue 3)" in table
    for key in ("config", "machine", "raw_pipe", "synthetic", "idle", "targets"):
        assert key in data
    assert set(data["raw_pipe"]) >= {"rtt_echo", "latency_1", "throughput"}
    syn = data["synthetic"]
    sessions = data["config"]["sessions"]
    for key in ("rtt_supervisor_status", "rtt_session_status", "latency_1", f"latency_{sessions}"):
        assert set(syn[key]) >= {"n", "p50", "p99", "max"}, key
    for size in ("small_20B", "large_4KiB"):
        assert set(syn["throughput"][size]) >= {"deltas_per_s", "mb_per_s", "lost"}
        assert syn["throughput"][size]["lost"] == 0
    assert syn[f"latency_{sessions}"]["lost"] == 0
    busy = syn["busy_stream"]
    assert busy["lost"] == 0 and busy["n"] == data["config"]["busy_deltas"] and busy["work_us"]
    memory = syn["memory"]
    runs = data["config"]["short_runs"]
    assert memory["runs"] == runs
    assert memory["series"][0][0] == 1 and memory["series"][-1][0] == runs
    assert isinstance(memory["growth_mb"], float)
    assert {"cpu_s", "seconds", "processes"} <= set(data["idle"])
    bp = data["backpressure"]
    assert bp["lost"] == 0 and bp["seq_gapless"] is True and bp["completed_count"] == 1
    assert bp["deltas_received"] == bp["deltas_produced"]


def test_bench_real_agent_peers_meet_head_to_head_in_rounds(tmp_path: Path) -> None:
    table, data = run_bench(tmp_path, "raw_pipe,synthetic,in_process,tui_gateway,real,rounds,rtt")
    rounds = data["rounds"]
    assert rounds["rounds"] == data["config"]["rounds"]
    names = {"hermes-stdio", "hermes-stdio warm", "in-process", "tui_gateway"}
    assert set(rounds["contenders"]) == names
    chunks = data["config"]["real_latency_chunks"] * rounds["rounds"]
    for name, figures in rounds["contenders"].items():
        assert figures["latency"]["n"] == chunks and figures["latency"]["lost"] == 0, name
        assert figures["throughput"]["lost"] == 0 and figures["throughput"]["deltas_per_s"], name
    cpu = {
        name: set(c["throughput"]["cpu_us_per_delta"]) for name, c in rounds["contenders"].items()
    }
    assert cpu["hermes-stdio warm"] == {"worker", "supervisor"} and cpu["in-process"] == {"agent"}
    assert set(rounds["ratios"]) == {
        "latency_p50_vs_tui_gateway",
        "latency_p99_vs_tui_gateway",
        "latency_p50_vs_in_process",
        "latency_p99_vs_in_process",
        "throughput_vs_in_process",
        "throughput_vs_tui_gateway",
    }
    by_name = {row["name"]: row["value"] for row in data["targets"]}
    median = rounds["ratios"]["throughput_vs_in_process"]["median"]
    assert by_name["real throughput / in-process"] == median
    # Every peer's round trips, both placements, in the same rounds.
    rtt = data["rtt"]
    peers = {"raw pipe echo", "supervisor/status", "session/status", "tui_gateway terminal.resize"}
    assert set(rtt["peers"]) == peers and rtt["rounds"] == data["config"]["rounds"]
    for name, placements in rtt["peers"].items():
        for placement in ("free", "same_cpu"):
            assert placements[placement]["median"] > 0, (name, placement)
    assert set(rtt["ratios"]) == {
        "supervisor_status_vs_tui_gateway",
        "supervisor_status_vs_raw_pipe",
        "session_status_vs_raw_pipe",
    }
    assert (
        by_name["supervisor/status p50 ms"] == rtt["peers"]["supervisor/status"]["free"]["median"]
    )
    assert "in rounds (p50; free / same CPU" in table
