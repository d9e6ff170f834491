"""The worker's terminal directory: the profile's ``TERMINAL_CWD`` as it is outside
any cron job's run, else the worker's own."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermes_stdio.worker import terminal_dir


@pytest.fixture(autouse=True)
def no_terminal_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERMINAL_CWD", raising=False)
    monkeypatch.delenv("TERMINAL_ENV", raising=False)


def test_the_directory_is_terminal_cwd_when_it_names_one_else_the_processs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert terminal_dir.current() == os.getcwd()
    monkeypatch.setenv("TERMINAL_CWD", f" {tmp_path} ")
    assert terminal_dir.current() == str(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "proj").mkdir()
    monkeypatch.setenv("TERMINAL_CWD", "~/proj")
    assert terminal_dir.current() == str(tmp_path / "proj")
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path / "missing"))
    assert terminal_dir.current() == os.getcwd()


def test_a_sandboxed_backends_terminal_cwd_is_not_a_directory_of_this_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    for backend, is_local in (("local", True), (" Local ", True), ("docker", False)):
        monkeypatch.setenv("TERMINAL_ENV", backend)
        assert terminal_dir.local() is is_local
        assert terminal_dir.current() == (str(tmp_path) if is_local else os.getcwd())


def test_bridging_runs_hermes_copy_of_the_terminal_settings_when_it_has_one() -> None:
    ran: list[bool] = []
    terminal = SimpleNamespace(_ensure_terminal_env_bridged=lambda: ran.append(True))
    assert terminal_dir.bridge(terminal)
    assert ran == [True]
    assert not terminal_dir.bridge(SimpleNamespace())


def test_while_a_job_with_a_workdir_runs_the_directory_is_still_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    with terminal_dir.around_job({"workdir": "/"}):
        os.environ["TERMINAL_CWD"] = "/"  # as hermes does
        assert terminal_dir.current() == str(tmp_path)
        os.environ["TERMINAL_CWD"] = str(tmp_path)
    os.environ["TERMINAL_CWD"] = "/"
    assert terminal_dir.current() == "/"  # outside a job: what the environment says


def test_jobs_with_a_workdir_run_one_at_a_time_and_others_at_once() -> None:
    entered = threading.Event()

    def second(job: dict[str, str | None]) -> None:
        with terminal_dir.around_job(job):
            entered.set()

    with terminal_dir.around_job({"workdir": "/a"}):
        without = threading.Thread(target=second, args=({"workdir": None},))
        without.start()
        assert entered.wait(10)  # a job without a workdir is not held
        without.join(10)
        entered.clear()
        other = threading.Thread(target=second, args=({"workdir": "/b"},))
        other.start()
        assert not entered.wait(0.2)  # bounded: it must not get in while this one runs
    assert entered.wait(10)
    other.join(10)
    assert not other.is_alive()
