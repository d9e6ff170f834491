"""hermes' scheduler gets an ``os`` that never moves the process's directory and
is the real ``os`` in every other way."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from hermes_stdio.worker import cron_cwd


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
