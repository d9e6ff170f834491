"""ImportAudit: what a block of imports reads, writes and opens."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_stdio.worker.audit import ImportAudit

KEY = "HERMES_STDIO_AUDIT_TEST"


@contextlib.contextmanager
def auditing() -> Iterator[ImportAudit]:
    # Inside the test body only: pytest itself sets PYTEST_CURRENT_TEST between phases.
    a = ImportAudit()
    a.start()
    try:
        yield a
    finally:
        a.stop()


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY, "seen")
    monkeypatch.delenv(KEY + "_ABSENT", raising=False)


def test_reads_through_get_getenv_index_and_in_are_recorded_with_the_value_seen() -> None:
    with auditing() as audit:
        assert os.environ.get(KEY) == "seen"
        assert os.getenv(KEY + "_ABSENT") is None
        assert (KEY + "_OTHER") not in os.environ
        with pytest.raises(KeyError):
            os.environ[KEY + "_MISSING"]
    assert audit.reads == {
        KEY: "seen",
        KEY + "_ABSENT": None,
        KEY + "_OTHER": None,
        KEY + "_MISSING": None,
    }
    assert audit.problems() == []


def test_writes_and_deletes_are_problems() -> None:
    with auditing() as audit:
        os.environ[KEY + "_NEW"] = "x"
        del os.environ[KEY + "_NEW"]
    assert audit.problems() == [f"set or deleted environment variable {KEY}_NEW"]


def test_iterating_the_environment_is_a_problem() -> None:
    with auditing() as audit:
        dict(os.environ)
    assert audit.problems() == ["iterated over the whole environment"]


def test_opening_a_file_outside_the_code_roots_is_a_problem(tmp_path: Path) -> None:
    outside = tmp_path / "SOUL.md"
    outside.write_text("x")
    with auditing() as audit:
        outside.read_text()
    assert audit.problems() == [f"opened {os.path.realpath(outside)}"]


def test_opening_the_interpreters_own_files_is_not_a_problem() -> None:
    with auditing() as audit:
        Path(os.__file__).read_bytes()
        with open(os.devnull, "rb"):
            pass
    assert audit.problems() == []


def test_mismatches_name_the_keys_whose_value_differs() -> None:
    with auditing() as audit:
        os.environ.get(KEY)
        os.environ.get(KEY + "_ABSENT")
    assert audit.mismatches({KEY: "seen"}) == []
    assert audit.mismatches({KEY: "other"}) == [KEY]
    assert audit.mismatches({}) == [KEY]
    assert audit.mismatches({KEY: "seen", KEY + "_ABSENT": "now set"}) == [KEY + "_ABSENT"]


def test_after_stop_nothing_is_recorded_and_the_environment_works_as_before(
    tmp_path: Path,
) -> None:
    with auditing() as a:
        pass
    os.environ.get(KEY)
    os.environ[KEY] = "w"
    dict(os.environ)
    (tmp_path / "f").write_text("x")
    assert (a.reads, a.writes, a.iterated, a.outside_files) == ({}, set(), False, [])
    assert os.environ[KEY] == "w"
    assert type(os.environ).__getitem__.__module__ == "os"


def test_the_working_directory_is_not_a_code_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    with auditing() as a:
        (tmp_path / "config.yaml").write_text("x")
    assert a.problems() == [f"opened {os.path.realpath(tmp_path / 'config.yaml')}"]
