"""hermes' scheduler gets an ``os`` that never moves the process's directory and
is the real ``os`` in every other way, and runs each job without moving the
worker's TERMINAL_CWD for good or blanking its caller's context."""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import cron_cwd, terminal_dir


def test_the_schedulers_chdir_leaves_the_process_where_it_was(tmp_path: Path) -> None:
    scheduler = SimpleNamespace(os=os)
    here = os.getcwd()

    assert cron_cwd.install(scheduler)
    scheduler.os.chdir(tmp_path)

    assert os.getcwd() == here
    assert scheduler.os.getcwd() == here
    assert scheduler.os.path is os.path and scheduler.os.environ is os.environ


def test_installing_again_keeps_one_layer() -> None:
    scheduler = SimpleNamespace(os=os)
    cron_cwd.install(scheduler)
    kept = scheduler.os

    assert cron_cwd.install(scheduler)
    assert scheduler.os is kept


def test_a_scheduler_without_os_is_left_alone() -> None:
    scheduler = SimpleNamespace()

    assert not cron_cwd.install(scheduler)
    assert not hasattr(scheduler, "os")


class Log(list[str]):
    """What the jobs did, in order; ``second_saved`` is set once job b saved its value."""

    def __init__(self) -> None:
        super().__init__()
        self.second_saved = threading.Event()

    def note(self, entry: str) -> None:
        self.append(entry)
        if entry == "saved b":
            self.second_saved.set()


SESSION: contextvars.ContextVar[str] = contextvars.ContextVar("session", default="")


def hermes_like_scheduler(log: Log, inside: Callable[[str], None]) -> SimpleNamespace:
    """A ``run_job`` that handles TERMINAL_CWD as hermes' does (the value to put back is
    read before it waits for the job running) and blanks a context variable."""
    lock = threading.Lock()

    def run_job(job: dict[str, Any]) -> None:
        name, workdir = job["id"], job["workdir"]
        prior = os.environ.get("TERMINAL_CWD", "")
        log.note(f"saved {name}")
        with lock:
            os.environ["TERMINAL_CWD"] = workdir
            SESSION.set("")  # as hermes' clear_session_vars
            try:
                inside(name)
            finally:
                os.environ["TERMINAL_CWD"] = prior
                log.note(f"ended {name}")

    return SimpleNamespace(os=os, run_job=run_job)


def test_a_job_run_within_a_turn_leaves_the_turns_context_as_it_was() -> None:
    scheduler = hermes_like_scheduler(Log(), lambda _name: None)
    cron_cwd.install(scheduler)
    token = SESSION.set("the turn's session")
    try:
        scheduler.run_job({"id": "a", "workdir": "/"})
        assert SESSION.get() == "the turn's session"
    finally:
        SESSION.reset(token)


def test_two_jobs_with_workdirs_at_once_leave_the_worker_its_own_terminal_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    log = Log()
    first_in = threading.Event()
    seen: list[str] = []

    def inside(name: str) -> None:
        seen.append(terminal_dir.current())
        if name == "a":
            first_in.set()
            log.second_saved.wait(0.5)  # bounded: one at a time, b saves nothing yet

    scheduler = hermes_like_scheduler(log, inside)
    cron_cwd.install(scheduler)
    first = threading.Thread(target=scheduler.run_job, args=({"id": "a", "workdir": "/"},))
    first.start()
    assert first_in.wait(10)
    second = threading.Thread(target=scheduler.run_job, args=({"id": "b", "workdir": "/"},))
    second.start()
    first.join(10)
    second.join(10)

    assert log == ["saved a", "ended a", "saved b", "ended b"]
    assert os.environ["TERMINAL_CWD"] == str(tmp_path)
    assert seen == [str(tmp_path)] * 2  # the worker's, while each job's was set


def test_run_job_is_wrapped_once() -> None:
    scheduler = hermes_like_scheduler(Log(), lambda _name: None)
    cron_cwd.install(scheduler)
    wrapped = scheduler.run_job

    assert cron_cwd.install(scheduler)
    assert scheduler.run_job is wrapped


class CdRecords:
    """hermes' terminal_tool session cwd record, keyed by approval session key."""

    def __init__(self) -> None:
        self.records: dict[str, str] = {}

    def get_session_cwd(self, key: str) -> str | None:
        return self.records.get(key)

    def record_session_cwd(self, key: str, cwd: str) -> None:
        self.records[key] = cwd

    def clear_session_cwd(self, key: str) -> None:
        self.records.pop(key, None)


def test_a_job_run_within_a_turn_starts_with_no_cd_record_and_leaves_the_turns_as_it_was() -> None:
    terminal = CdRecords()
    terminal.records["turn"] = "/turn/sub"
    approval = SimpleNamespace(get_current_session_key=lambda default: "turn")
    seen: list[str | None] = []

    def inside(_name: str) -> None:
        seen.append(terminal.get_session_cwd("turn"))
        terminal.record_session_cwd("turn", "/")  # the job's agent ran `cd /`

    scheduler = hermes_like_scheduler(Log(), inside)
    cron_cwd.install(scheduler, approval, terminal)
    scheduler.run_job({"id": "a", "workdir": "/"})

    assert seen == [None]
    assert terminal.records == {"turn": "/turn/sub"}


def test_a_job_run_outside_any_session_key_touches_no_cd_record() -> None:
    terminal = CdRecords()
    terminal.records["default"] = "/somewhere"
    approval = SimpleNamespace(get_current_session_key=lambda default: default)
    scheduler = hermes_like_scheduler(Log(), lambda _name: None)
    cron_cwd.install(scheduler, approval, terminal)
    scheduler.run_job({"id": "a", "workdir": "/"})

    assert terminal.records == {"default": "/somewhere"}
