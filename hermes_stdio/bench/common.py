"""Shared benchmark setup: sizes, the temp Hermes home, and run helpers.

Contract:
- ``Config.quick()`` / ``Config.full()`` are the two sizes; every count used
  by a measurement comes from the ``Config``.
- ``Ctx`` owns the temporary Hermes home, the offline environment, the one
  scripted LLM (its own process, ``llm_proc``, on 127.0.0.1) and the log
  directory. Its profiles: ``default``; ``bench2`` for the synthetic agent;
  for first starts, ``new_profiles`` and ``ready_profiles`` (the template's
  section), ``spawned_new_profiles`` and ``spawned_ready_profiles`` (the
  spawned one), so neither section starts a profile the other started; and
  ``fresh_profiles``. Every profile but the fresh ones has been used before,
  as a host's profiles have: ``used_before`` has hermes create its session
  database (``state.db``: 25-80 ms of a worker's first start here, most of
  it SQLite's syncs) before any section runs.
  ``Ctx.arm_chunks()`` scripts the next replies and resets the record of
  when each token chunk was flushed; ``Ctx.sent()`` fetches that record.
  ``Ctx.settle(label)`` waits for a quiet machine before a timed measurement
  and records the wait in ``Ctx.settled`` (reported in the JSON).
- ``run_framed`` starts one stream on a framed client (``run/start`` on the
  supervisor, ``stream`` on the raw-pipe process) and waits for its
  completion; ``rate`` turns a finished stream into throughput numbers.
  All waits are bounded by ``Config.timeout``.
- ``pinned(alone, rest)`` runs a block with every thread of the ``alone``
  pids on CPU 0 and every thread of the ``rest`` pids (and the bench) on the
  other CPUs, then lets them all run anywhere again; it yields False, and
  pins nothing, on a machine with fewer than two CPUs.
- ``memory_series(run_one, pid, runs, other)`` runs ``run_one(i)`` for
  i = 1..runs and samples the RSS of ``pid`` (and of ``other``) after run 1
  and after every tenth of the runs, each sample ``TRIM_SETTLE_S`` after the
  run ended (the worker trims its heap right after ``run/completed``).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..testing.home import make_home, offline_env
from .client import FramedClient, Stream
from .stats import rss_mb, settle

if TYPE_CHECKING:
    from .rtt import RttPeer

PROFILE2 = "bench2"
# Sampling RSS right after a run would race the worker's heap trim and measure the
# allocator's timing rather than the process.
TRIM_SETTLE_S = 0.2


_CREATE_DBS = """
import sys
from pathlib import Path
from hermes_state import SessionDB
for home in sys.argv[1:]:
    SessionDB(db_path=Path(home) / "state.db").close()
"""


def used_before(env: dict[str, str], homes: list[Path]) -> None:
    """Each profile home as a first run leaves it: with hermes' own session database."""
    subprocess.run(
        [sys.executable, "-c", _CREATE_DBS, *map(str, homes)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        check=True,
        timeout=120,
    )


@dataclass
class Config:
    rtt_calls: int = 2000
    latency_count: int = 1000  # deltas per session in latency runs
    latency_interval_ms: int = 5
    sessions: int = 16
    tp_small: int = 50000
    tp_large: int = 5000
    real_latency_chunks: int = 1000
    real_chunk_delay_ms: float = 2.0
    real_tp_chunks: int = 5000
    busy_deltas: int = 5000  # synthetic deltas from an agent thread busy between them
    tp_reps: int = 3  # pinned real-agent throughput turns per peer (median reported)
    rounds: int = 5  # head-to-head rounds of the real-agent peers (and of round trips)
    rtt_round_calls: int = 500  # round trips per peer, placement and round
    short_runs: int = 1000
    new_profiles: int = 3  # cold-start samples: one new profile's first run each
    idle_seconds: float = 30.0
    bp_deltas: int = 200_000
    bp_pause_s: float = 10.0
    timeout: float = 120.0
    settle_limit_s: float = 15.0  # longest wait for a quiet machine; 0 skips the wait
    quick: bool = False

    @classmethod
    def full(cls) -> Config:
        return cls()

    @classmethod
    def quick_(cls) -> Config:
        return cls(
            rtt_calls=1000,
            rtt_round_calls=200,
            latency_count=200,
            tp_small=10000,
            tp_large=1000,
            real_latency_chunks=200,
            real_tp_chunks=1000,
            busy_deltas=2000,
            rounds=3,
            short_runs=100,
            new_profiles=2,
            idle_seconds=5.0,
            bp_deltas=50_000,
            bp_pause_s=3.0,
            quick=True,
        )

    @classmethod
    def tiny(cls) -> Config:
        """For the smoke test: every measurement runs, with minimal counts."""
        return cls(
            rtt_calls=20,
            rtt_round_calls=20,
            latency_count=10,
            latency_interval_ms=1,
            sessions=4,
            tp_small=200,
            tp_large=20,
            real_latency_chunks=10,
            real_chunk_delay_ms=1.0,
            real_tp_chunks=50,
            busy_deltas=50,
            tp_reps=1,
            rounds=1,
            short_runs=3,
            new_profiles=1,
            idle_seconds=0.5,
            bp_deltas=500,
            bp_pause_s=0.5,
            timeout=60.0,
            settle_limit_s=0.0,
            quick=True,
        )


class Ctx:
    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.logs = root / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.settled: dict[str, float] = {}
        # Filled by sections whose peer stays live for ``rounds.head_to_head``.
        self.contenders: dict[str, Callable[[str], tuple[dict[int, int], Stream | None]]] = {}
        self.contender_pids: dict[str, dict[str, int]] = {}  # contender -> role -> pid
        self.rtt_peers: dict[str, RttPeer] = {}  # for rtt.rtt_rounds
        self.closers: list[Callable[[], object]] = []
        self._llm_log = self.log("scripted-llm").open("ab")
        self._llm = subprocess.Popen(
            [sys.executable, "-m", "hermes_stdio.bench.llm_proc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._llm_log,
            start_new_session=True,
        )
        self._answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read_llm, name="llm-reader", daemon=True).start()
        self.base_url = str(self._llm_answer()["base_url"])
        n = range(config.new_profiles)
        self.new_profiles = [f"bench{i + 2}" for i in n]
        self.ready_profiles = [f"ready{i + 1}" for i in n]
        self.spawned_new_profiles = [f"spawned{i + 2}" for i in n]
        self.spawned_ready_profiles = [f"spawned-ready{i + 1}" for i in n]
        self.fresh_profiles = [f"fresh{i + 1}" for i in n]
        used = [
            *self.new_profiles,
            *self.ready_profiles,
            *self.spawned_new_profiles,
            *self.spawned_ready_profiles,
        ]
        profiles: dict[str, dict[str, str]] = {p: {} for p in used + self.fresh_profiles}
        self.home = make_home(root, self.base_url, profiles=profiles)
        self.env = offline_env(self.home, {"PYTHONUNBUFFERED": "1"})
        try:
            used_before(self.env, [self.home, *(self.home / "profiles" / p for p in used)])
        except BaseException:
            self.close()  # the scripted LLM runs already
            raise

    def _read_llm(self) -> None:
        assert self._llm.stdout is not None
        for line in iter(self._llm.stdout.readline, b""):
            self._answers.put(line)

    def _llm_answer(self) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = json.loads(self._answers.get(timeout=30))
        except queue.Empty:
            raise TimeoutError("scripted LLM process did not answer") from None
        return answer

    def _llm_cmd(self, **cmd: Any) -> dict[str, Any]:
        assert self._llm.stdin is not None
        self._llm.stdin.write(json.dumps(cmd).encode() + b"\n")
        self._llm.stdin.flush()
        return self._llm_answer()

    def arm_chunks(self, count: int, delay_ms: float) -> None:
        """Every following LLM call streams ``count`` token chunks ``delay_ms`` apart."""
        self._llm_cmd(cmd="arm", count=count, delay_ms=delay_ms)

    def call_tools(self, *calls: tuple[str, dict[str, Any]]) -> None:
        """The next completions call these tools, one each, then reply as before."""
        self._llm_cmd(cmd="tools", calls=[list(c) for c in calls])

    def reply_ok(self) -> None:
        self._llm_cmd(cmd="ok")

    def sent(self) -> dict[int, int]:
        """When the LLM flushed each token chunk since the last ``arm_chunks``."""
        return {int(k): int(v) for k, v in self._llm_cmd(cmd="sent")["sent"].items()}

    @property
    def llm_pid(self) -> int:
        return self._llm.pid

    def settle(self, label: str) -> None:
        if self.config.settle_limit_s > 0:
            self.settled[label] = settle(self.config.settle_limit_s)

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def supervisor(self, name: str, synthetic: bool, template: bool = True) -> FramedClient:
        argv = [sys.executable, "-m", "hermes_stdio", "--hermes-home", str(self.home)]
        if synthetic or not template:
            argv.append("--no-worker-template")
        if synthetic:
            # The wrapper passes --synthetic-agent to every worker even if the
            # supervisor does not forward its own flag to workers.
            wrapper = self.root / "synthetic-python"
            wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} "$@" --synthetic-agent\n')
            wrapper.chmod(0o755)
            argv += ["--synthetic-agent", "--agent-python", str(wrapper)]
        return FramedClient(argv, self.env, self.log(name))

    def close(self) -> None:
        for close in self.closers:
            try:
                close()
            except Exception as exc:  # one peer's teardown must not skip the others'
                print(f"bench: closing a peer failed: {exc!r}", file=sys.stderr)
        if self._llm.stdin is not None:
            self._llm.stdin.close()
        try:
            self._llm.wait(10)
        except subprocess.TimeoutExpired:
            self._llm.kill()
            self._llm.wait(5)
        self._llm_log.close()


def bench_message(count: int, size: int, interval_ms: int, work_us: int = 0) -> str:
    work = f" work_us={work_us}" if work_us else ""
    return f"bench count={count} size={size} interval_ms={interval_ms}{work}"


def start_params(
    client_kind: str,
    session_id: str,
    count: int,
    size: int,
    interval_ms: int,
    profile: str | None,
    work_us: int = 0,
) -> tuple[str, dict[str, Any]]:
    if client_kind == "pipe":
        params = {"sessionId": session_id, "count": count, "size": size}
        return "stream", {**params, "interval_ms": interval_ms}
    message = bench_message(count, size, interval_ms, work_us)
    params = {"message": message, "sessionId": session_id}
    if profile is not None:
        params["profile"] = profile
    return "run/start", params


def run_framed(
    client: FramedClient,
    kind: str,
    session_id: str,
    count: int,
    size: int,
    interval_ms: int,
    timeout: float,
    profile: str | None = None,
    extra: dict[str, Any] | None = None,
    work_us: int = 0,
) -> tuple[Stream, int]:
    """One synthetic stream, waited for; returns the stream and its send time."""
    stream = client.watch(session_id, Stream("stamp", size))
    method, params = start_params(kind, session_id, count, size, interval_ms, profile, work_us)
    params.update(extra or {})
    t0 = time.monotonic_ns()
    client.request(method, params, timeout)
    stream.wait_done(timeout)
    return stream, t0


def rate(stream: Stream, expected: int) -> dict[str, Any]:
    span = (stream.last_ns - stream.first_ns) / 1e9
    units = stream.units
    return {
        "deltas": units,
        "lost": expected - units,
        "frames": stream.frames,
        "deltas_per_s": round((units - 1) / span) if span > 0 else None,
        "mb_per_s": round(stream.text_bytes / span / 1e6, 2) if span > 0 else None,
        "wire_bytes_per_delta": round(stream.wire_bytes / units, 1) if units else None,
        "seconds": round(span, 3),
    }


def set_affinity(pids: list[int], cpus: set[int]) -> None:
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            with contextlib.suppress(OSError):  # a thread that just ended
                os.sched_setaffinity(int(tid), cpus)


@contextlib.contextmanager
def pinned(alone: list[int], rest: list[int]) -> Iterator[bool]:
    """Give the ``alone`` processes CPU 0 to themselves (threads they start inherit it)."""
    every = set(range(os.cpu_count() or 1))
    if len(every) < 2 or not hasattr(os, "sched_setaffinity"):
        yield False
        return
    others = [*rest, os.getpid()]
    try:
        set_affinity(alone, {0})
        set_affinity(others, every - {0})
        yield True
    finally:
        set_affinity([*alone, *others], every)


def memory_series(
    run_one: Callable[[int], object], pid: int, runs: int, other: int | None = None
) -> dict[str, Any]:
    series: list[tuple[int, float | None, float | None]] = []
    step = max(1, runs // 10)
    for i in range(1, runs + 1):
        run_one(i)
        if i == 1 or i % step == 0 or i == runs:
            time.sleep(TRIM_SETTLE_S)
            series.append((i, rss_mb(pid), rss_mb(other) if other is not None else None))
    first, last = series[0][1], series[-1][1]
    growth = round(last - first, 2) if first is not None and last is not None else None
    return {
        "runs": runs,
        "after_1_mb": first,
        "after_n_mb": last,
        "growth_mb": growth,
        "series": series,
    }
