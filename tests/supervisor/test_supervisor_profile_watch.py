"""supervisor/profile_watch.py, on a real Hermes home with real inotify: a profile
made, removed or renamed, or a change of what profile/list shows for one, is
announced once; what else happens in the profiles' homes is not."""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_stdio.supervisor.profile_watch import ProfileWatch, digest
from hermes_stdio.supervisor.profiles import listing

WAIT_S = 10.0


class Announced:
    def __init__(self) -> None:
        self.q: queue.Queue[None] = queue.Queue()
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        self.q.put(None)

    def next(self) -> None:
        self.q.get(timeout=WAIT_S)


def profile(home: Path, name: str, model: str = "m1", description: str = "") -> Path:
    where = home / "profiles" / name
    where.mkdir(parents=True)
    (where / "config.yaml").write_text(f"model: {{default: {model}, provider: custom}}\n")
    if description:
        (where / "profile.yaml").write_text(f"description: {description}\n")
    return where


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text("model: {default: m0}\n")
    profile(home, "work")
    return home


@pytest.fixture
def watched(home: Path) -> Iterator[Announced]:
    announced = Announced()
    watch = ProfileWatch(home, announced)
    assert watch.start()
    assert announced.count == 0  # the start is no change
    yield announced
    watch.stop()


def test_a_profile_made_renamed_or_removed_is_announced_once_each(
    home: Path, watched: Announced
) -> None:
    profile(home, "play", description="Games")
    watched.next()
    assert [name for name, *_ in listing(home)] == ["default", "play", "work"]
    os.rename(home / "profiles" / "play", home / "profiles" / "fun")
    watched.next()
    shutil.rmtree(home / "profiles" / "fun")
    watched.next()
    assert watched.count == 3


def test_what_profile_list_shows_changing_is_announced(home: Path, watched: Announced) -> None:
    work = home / "profiles" / "work"
    new = work / "config.yaml.tmp"  # replaced by rename, as editors and hermes do
    new.write_text("model: {default: m2, provider: custom}\n")
    os.replace(new, work / "config.yaml")
    watched.next()
    (work / "profile.yaml").write_text("description: Day job\n")
    watched.next()
    (home / "config.yaml").write_text("model: {default: m3}\n")  # the default profile's
    watched.next()
    assert listing(home)[0][2] == "m3" and watched.count == 3


def test_a_profile_whose_worker_would_be_refused_and_then_fixed_is_announced(
    home: Path, watched: Announced
) -> None:
    work = home / "profiles" / "work"
    good = (work / "config.yaml").read_text()
    (work / "config.yaml").write_text(good + "broken: [\n")  # model and provider unchanged
    watched.next()
    assert {p.name: p.problem for p in listing(home)}["work"] is not None
    (work / "config.yaml").write_text(good)
    watched.next()
    os.mkfifo(work / ".env")  # hermes' read of it would hang
    watched.next()
    assert {p.name: p.problem for p in listing(home)}["work"] == ".env is not a regular file"
    assert watched.count == 3


def test_the_rest_of_the_profiles_homes_and_unchanged_rewrites_announce_nothing(
    home: Path, watched: Announced
) -> None:
    work = home / "profiles" / "work"
    for where in (home, work):
        (where / "state.db-journal").write_text("x")  # hermes' own files
        (where / "state.db-journal").unlink()
        (where / "sessions").mkdir()
        (where / "sessions" / "s1.json").write_text("{}")
    (work / "config.yaml").write_text((work / "config.yaml").read_text())  # same content
    profile(home, "play")  # the change that follows: the only one announced
    watched.next()
    assert watched.count == 1


def test_a_profiles_directory_made_after_the_start_is_watched(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    announced = Announced()
    watch = ProfileWatch(home, announced)
    assert watch.start()
    try:
        profile(home, "work")  # makes profiles/ too
        announced.next()
        while [name for name, *_ in listing(home)] != ["default", "work"]:
            announced.next()  # seen in two steps: profiles/, then work/ in it
        (home / "profiles" / "work" / "profile.yaml").write_text("description: Now seen\n")
        announced.next()
    finally:
        watch.stop()


class JobsChanged:
    def __init__(self) -> None:
        self.q: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []

    def __call__(self, profile: str) -> None:
        self.seen.append(profile)
        self.q.put(profile)

    def next(self) -> str:
        return self.q.get(timeout=WAIT_S)


def write_jobs(profile_home: Path, jobs: str) -> None:
    """As hermes saves them: a temporary file renamed over jobs.json."""
    cron = profile_home / "cron"
    cron.mkdir(exist_ok=True)
    (cron / ".jobs.json.tmp").write_text(jobs)
    os.replace(cron / ".jobs.json.tmp", cron / "jobs.json")


def test_a_profiles_cron_jobs_changing_is_told_for_that_profile_only(home: Path) -> None:
    write_jobs(home, '{"jobs": []}')  # the default profile's, before the start
    jobs = JobsChanged()
    watch = ProfileWatch(home, Announced(), {"cron/jobs.json": lambda p, _digest: jobs(p)})
    assert watch.start()
    try:
        assert jobs.seen == []  # the start is no change
        work = home / "profiles" / "work"
        write_jobs(work, '{"jobs": [{"id": "a"}]}')  # its cron/ made now: watched from then
        assert jobs.next() == "work"
        write_jobs(home, '{"jobs": [{"id": "b"}]}')
        assert jobs.next() == "default"
        for noise in (".tick.lock", "executions.db"):  # hermes' other files in cron/
            (work / "cron" / noise).write_text("x")
        (work / "cron" / "output").mkdir()
        write_jobs(work, '{"jobs": [{"id": "a"}]}')  # the same content again
        write_jobs(work, '{"jobs": []}')  # the change that follows: the only one told
        assert jobs.next() == "work"
        assert jobs.seen == ["work", "default", "work"]
    finally:
        watch.stop()


def test_a_profiles_config_changing_is_told_with_its_version_and_a_fifo_is_never_read(
    home: Path,
) -> None:
    told: queue.Queue[tuple[str, str | None]] = queue.Queue()
    watch = ProfileWatch(home, Announced(), {"config.yaml": lambda p, v: told.put((p, v))})
    assert watch.start()
    try:
        work = home / "profiles" / "work" / "config.yaml"
        work.write_text("model: {default: m1, provider: custom}\n# a comment\n")
        assert told.get(timeout=WAIT_S) == ("work", digest(work))
        work.unlink()
        os.mkfifo(work)  # a digest that opened it would wait for a writer for ever
        assert told.get(timeout=WAIT_S) == ("work", None)
        (home / "profile.yaml").write_text("description: x\n")  # not config.yaml: no word
        work.unlink()  # gone: still None, no word
        (home / "config.yaml").write_text("model: {default: m9}\n")
        version = digest(home / "config.yaml")
        assert version == hashlib.sha256(b"model: {default: m9}\n").hexdigest()
        assert told.get(timeout=WAIT_S) == ("default", version)
        assert told.empty()
    finally:
        watch.stop()


def test_two_files_of_one_directory_are_told_apart_and_the_directory_made_late_is_watched(
    home: Path,
) -> None:
    told: queue.Queue[tuple[str, str]] = queue.Queue()
    files = {
        f"memories/{name}": (lambda n: lambda p, _v: told.put((p, n)))(name)
        for name in ("MEMORY.md", "USER.md")
    }
    watch = ProfileWatch(home, Announced(), files)
    assert watch.start()
    try:
        memories = home / "profiles" / "work" / "memories"
        memories.mkdir()  # made after the start, as hermes makes it on first use
        (memories / "USER.md").write_text("likes tea")
        assert told.get(timeout=WAIT_S) == ("work", "USER.md")
        (memories / "MEMORY.md.lock").write_text("")  # hermes' lock file: no word
        (memories / "MEMORY.md").write_text("the repo uses uv")
        assert told.get(timeout=WAIT_S) == ("work", "MEMORY.md")
        assert told.empty()
    finally:
        watch.stop()
