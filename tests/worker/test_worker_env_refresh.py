"""env_refresh: the profile's .env applied again, as far as it changed, when it changes."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_stdio.worker import env_refresh
from hermes_stdio.worker.env_refresh import EnvRefresh, HermesDotenv

LATER = 3_000_000_000  # ns: past the time a file takes to settle


class Dotenv:
    """A profile's .env, read as hermes' load_env reads it (NAME=value lines)."""

    def __init__(
        self,
        path: Path,
        environ: dict[str, str],
        managed: dict[str, str],
        clock: Callable[[], int] = lambda: time.time_ns() + LATER,
    ) -> None:
        self.path, self.loads = path, 0
        self.refresh = EnvRefresh(
            HermesDotenv(
                path=path,
                load=self.load,
                managed=lambda: managed,
                refused=lambda name: name in ("PATH", "LD_PRELOAD"),
                environ=environ,
                clock=clock,  # by default each file looked at has settled
            )
        )

    def load(self) -> dict[str, str]:
        self.loads += 1
        lines = self.path.read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)


def write(path: Path, text: str) -> None:
    """As hermes and editors save it: a new file renamed over the old one."""
    tmp = path.with_name(".env.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


@pytest.fixture
def env_file(tmp_path: Path) -> Path:
    path = tmp_path / ".env"
    path.write_text("OPENAI_API_KEY=sk-old\nWORK_SECRET=s1\n")
    return path


def test_a_file_unchanged_since_the_last_look_is_not_read_again(env_file: Path) -> None:
    dotenv = Dotenv(env_file, {"OPENAI_API_KEY": "sk-old"}, {})
    assert dotenv.loads == 1  # as hermes loaded it at import
    assert dotenv.refresh.refresh() == []
    assert dotenv.loads == 1


def test_a_changed_added_or_removed_variable_is_applied_and_named(env_file: Path) -> None:
    environ = {"OPENAI_API_KEY": "sk-old", "WORK_SECRET": "s1", "HOME": "/home/u"}
    dotenv = Dotenv(env_file, environ, {})
    write(env_file, "OPENAI_API_KEY=sk-new\nGITHUB_TOKEN=gh\n")
    assert dotenv.refresh.refresh() == ["GITHUB_TOKEN", "OPENAI_API_KEY", "WORK_SECRET"]
    assert environ == {"OPENAI_API_KEY": "sk-new", "GITHUB_TOKEN": "gh", "HOME": "/home/u"}
    assert dotenv.refresh.refresh() == []  # applied once


def test_a_variable_only_the_environment_gave_stays_when_the_file_changes(
    env_file: Path,
) -> None:
    # Unlike hermes' reload.env, which unsets each variable it knows that the file lacks.
    environ = {"OPENROUTER_API_KEY": "from-the-shell", "OPENAI_API_KEY": "sk-old"}
    dotenv = Dotenv(env_file, environ, {})
    write(env_file, "OPENAI_API_KEY=sk-new\n")
    dotenv.refresh.refresh()
    assert environ["OPENROUTER_API_KEY"] == "from-the-shell"


def test_a_change_made_here_already_is_named_for_the_shells_started_before(
    env_file: Path,
) -> None:
    environ = {"OPENAI_API_KEY": "sk-old"}
    dotenv = Dotenv(env_file, environ, {})
    assert dotenv.refresh.changed_since(0) == (0, [])
    environ["OPENAI_API_KEY"] = "sk-new"  # env/set here: hermes set it as it wrote the file
    write(env_file, "OPENAI_API_KEY=sk-new\nWORK_SECRET=s1\n")
    assert dotenv.refresh.refresh() == ["OPENAI_API_KEY"]
    assert environ == {"OPENAI_API_KEY": "sk-new"}
    write(env_file, "OPENAI_API_KEY=sk-new\nGITHUB_TOKEN=gh\n")
    dotenv.refresh.refresh()
    assert dotenv.refresh.changed_since(0) == (2, ["GITHUB_TOKEN", "OPENAI_API_KEY", "WORK_SECRET"])
    assert dotenv.refresh.changed_since(1) == (2, ["GITHUB_TOKEN", "WORK_SECRET"])
    assert dotenv.refresh.changed_since(2) == (2, [])


def test_managed_refused_and_unholdable_values_are_left_for_the_next_start(
    env_file: Path,
) -> None:
    environ = {"OPENAI_API_KEY": "pinned", "PATH": "/usr/bin"}
    dotenv = Dotenv(env_file, environ, {"OPENAI_API_KEY": "pinned"})
    write(
        env_file, "OPENAI_API_KEY=sk-new\nWORK_SECRET=s1\nPATH=/evil\nLD_PRELOAD=x.so\nNUL=a\0b\n"
    )
    assert dotenv.refresh.refresh() == []
    assert environ == {"OPENAI_API_KEY": "pinned", "PATH": "/usr/bin"}


def test_a_rewrite_of_the_same_size_within_one_clock_tick_is_seen(env_file: Path) -> None:
    environ = {"OPENAI_API_KEY": "sk-old"}
    dotenv = Dotenv(env_file, environ, {})
    before = env_file.stat()
    write(env_file, "OPENAI_API_KEY=sk-new\nWORK_SECRET=s1\n")
    os.utime(env_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert env_file.stat().st_size == before.st_size
    assert dotenv.refresh.refresh() == ["OPENAI_API_KEY"]


def test_a_file_that_changed_just_before_the_last_look_is_read_again_though_it_looks_same(
    env_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Within the clock's granularity an edit in place can keep size and times.
    monkeypatch.setattr(env_refresh, "signature", lambda st: (st.st_ino, st.st_size))
    environ = {"OPENAI_API_KEY": "sk-old"}
    dotenv = Dotenv(env_file, environ, {}, clock=time.time_ns)  # written just now
    with env_file.open("r+") as f:
        f.write("OPENAI_API_KEY=sk-new")
    assert dotenv.refresh.refresh() == ["OPENAI_API_KEY"]
    assert environ == {"OPENAI_API_KEY": "sk-new"}


def test_a_removed_file_unsets_what_it_set(env_file: Path) -> None:
    environ = {"OPENAI_API_KEY": "sk-old", "WORK_SECRET": "s1"}
    dotenv = Dotenv(env_file, environ, {})
    env_file.unlink()
    assert dotenv.refresh.refresh() == ["OPENAI_API_KEY", "WORK_SECRET"]
    assert environ == {}
    env_file.write_text("OPENAI_API_KEY=sk-back\n")
    assert dotenv.refresh.refresh() == ["OPENAI_API_KEY"]


def test_a_file_that_is_not_regular_is_never_read(env_file: Path) -> None:
    environ = {"OPENAI_API_KEY": "sk-old"}
    dotenv = Dotenv(env_file, environ, {})
    env_file.unlink()
    os.mkfifo(env_file)
    done: list[list[str]] = []
    reader = threading.Thread(target=lambda: done.append(dotenv.refresh.refresh()), daemon=True)
    reader.start()
    reader.join(10)
    assert done == [[]]  # a read would have blocked on the FIFO
    assert environ == {"OPENAI_API_KEY": "sk-old"} and dotenv.loads == 1
