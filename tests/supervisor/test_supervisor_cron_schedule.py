"""CronSchedule over a fake clock and timer: it sleeps until the soonest due job of
any profile (never longer than MAX_SLEEP_S, never with nothing due), ticks the
profiles whose time has come, waits RETRY_S before ticking again a profile whose
time did not move on, and reads jobs files as hermes writes them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hermes_stdio.supervisor.cron_schedule import MAX_SLEEP_S, RETRY_S, CronSchedule, soonest_due
from hermes_stdio.transport.timers import TimerHandle

NOW = 1_800_000_000.0


class Timers:
    """Records each timer set; ``fire()`` runs the last one still live."""

    def __init__(self) -> None:
        self.set: list[tuple[float, TimerHandle]] = []
        self.fired: set[int] = set()

    def call_later(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        handle = TimerHandle(time.monotonic() + delay, fn)
        self.set.append((delay, handle))
        return handle

    def live(self) -> list[float]:
        return [d for d, h in self.set if not h.cancelled and id(h) not in self.fired]

    def fire(self) -> None:
        handle = next(h for _, h in reversed(self.set) if not h.cancelled)
        self.fired.add(id(handle))
        handle.fn()


def write_jobs(home: Path, *jobs: dict[str, Any]) -> None:
    (home / "cron").mkdir(parents=True, exist_ok=True)
    (home / "cron" / "jobs.json").write_text(json.dumps({"jobs": list(jobs)}))


def at(seconds: float) -> str:
    return datetime.fromtimestamp(NOW + seconds, UTC).isoformat()


class World:
    def __init__(self, tmp: Path) -> None:
        self.clock = NOW
        self.homes = {name: tmp / name for name in ("default", "work", "idle")}
        self.ticks: list[str] = []
        self.timers = Timers()
        self.schedule = CronSchedule(
            lambda: list(self.homes.items()),
            self.tick,
            timers=self.timers,  # type: ignore[arg-type]
            clock=lambda: self.clock,
        )

    def tick(self, profile: str) -> None:
        self.ticks.append(profile)
        if profile == "work":
            raise RuntimeError("no worker")


def test_it_sleeps_until_the_soonest_due_job_of_any_profile_then_ticks_that_profile(
    tmp_path: Path,
) -> None:
    w = World(tmp_path)
    write_jobs(w.homes["default"], {"id": "a", "next_run_at": at(120)})
    write_jobs(
        w.homes["work"], {"id": "b", "next_run_at": at(30)}, {"id": "c", "next_run_at": at(90)}
    )
    w.schedule.enable(True)
    assert w.timers.live() == [30]
    w.clock += 30
    w.timers.fire()
    assert w.ticks == ["work"]  # its failure was logged, not raised
    write_jobs(w.homes["work"], {"id": "c", "next_run_at": at(90)})  # as its tick moves b on
    w.schedule.look("work", w.homes["work"])  # the file's change
    assert w.timers.live()[-1] == 60  # c, at 90


def test_a_profile_whose_time_did_not_move_after_its_tick_waits_retry_s(tmp_path: Path) -> None:
    w = World(tmp_path)
    write_jobs(w.homes["default"], {"id": "a", "next_run_at": at(-5)})
    w.schedule.enable(True)
    assert w.timers.live() == [0]  # overdue: at once
    w.timers.fire()
    assert w.ticks == ["default"]
    assert w.timers.live()[-1] == RETRY_S  # still due: not ticked again at once
    w.clock += RETRY_S
    w.timers.fire()
    assert w.ticks == ["default", "default"]


def test_it_never_sleeps_past_max_sleep_s_and_sets_no_timer_with_nothing_due(
    tmp_path: Path,
) -> None:
    w = World(tmp_path)
    w.schedule.enable(True)
    assert w.timers.live() == []
    write_jobs(w.homes["idle"], {"id": "a", "next_run_at": at(86_400)})
    w.schedule.look("idle", w.homes["idle"])
    assert w.timers.live() == [MAX_SLEEP_S]
    w.clock += MAX_SLEEP_S
    w.timers.fire()  # wakes, reads again, ticks nothing
    assert w.ticks == [] and w.timers.live()[-1] == MAX_SLEEP_S


def test_switched_off_it_reads_nothing_and_ticks_nothing(tmp_path: Path) -> None:
    w = World(tmp_path)
    write_jobs(w.homes["default"], {"id": "a", "next_run_at": at(10)})
    w.schedule.look("default", w.homes["default"])
    assert w.timers.live() == []
    w.schedule.enable(True)
    w.schedule.enable(False)
    w.clock += 10
    w.timers.fire()
    assert w.ticks == []


def test_the_soonest_due_time_skips_paused_finished_and_malformed_jobs(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.json"
    assert soonest_due(jobs) is None  # no file
    jobs.write_text("not json")
    assert soonest_due(jobs) is None
    naive = datetime.fromtimestamp(NOW + 50).isoformat()  # hermes' local time
    listed = [
        {"id": "paused", "state": "paused", "next_run_at": at(1)},
        {"id": "done", "enabled": False, "next_run_at": at(2)},
        {"id": "bad", "next_run_at": "tomorrow"},
        {"id": "none", "next_run_at": None},
        "not a job",
        {"id": "naive", "next_run_at": naive},
        {"id": "aware", "next_run_at": at(70)},
    ]
    jobs.write_text(json.dumps({"jobs": listed}))
    assert soonest_due(jobs) == NOW + 50
    jobs.write_text(json.dumps(listed[-1:]))  # a bare list, as old stores hold
    assert soonest_due(jobs) == NOW + 70
