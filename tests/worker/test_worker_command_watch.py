"""worker/command_watch.py: the fingerprint of the files behind a profile's slash
commands, and a watch (real inotify, real directories) that reports it once per
change, whoever made the change."""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_stdio.transport import inotify
from hermes_stdio.worker import command_watch as cw

EXCLUDED = frozenset({".git", "node_modules", ".archive"})
SUPPORT = frozenset({"references", "scripts"})
WAIT_S = 10.0


def skill(root: Path, name: str, description: str = "does things") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")
    return path


class Home:
    """A Hermes home's command files, and the Sources a watch of them uses."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.skills = base / "skills"
        self.bundles = base / "skill-bundles"
        self.config = base / "config.yaml"
        self.external: list[Path] = []

    def sources(self) -> cw.Sources:
        roots = [self.skills, *[p for p in self.external if p.is_dir()]]
        return cw.Sources(roots, self.bundles, self.config, EXCLUDED, SUPPORT)


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Home(tmp_path / "home")
    h.skills.mkdir(parents=True)
    skill(h.skills, "tidy")
    h.config.write_text("model: {}\n")
    return h


def fp(home: Home) -> str:
    return cw.scan(home.sources()).fingerprint


@pytest.mark.parametrize(
    "change",
    [
        "edit a SKILL.md",
        "add a skill",
        "delete a skill",
        "add a bundle",
        "edit config.yaml",
        "replace a SKILL.md by rename",
    ],
)
def test_the_fingerprint_changes_with_each_file_behind_the_commands(
    home: Home, change: str
) -> None:
    before = fp(home)
    assert fp(home) == before  # the same files, the same state
    tidy = home.skills / "tidy" / "SKILL.md"
    if change == "edit a SKILL.md":
        tidy.write_text(tidy.read_text() + "More.\n")
    elif change == "add a skill":
        skill(home.skills / "group", "sweep")
    elif change == "delete a skill":
        tidy.unlink()
    elif change == "add a bundle":
        home.bundles.mkdir()
        (home.bundles / "chores.yaml").write_text("name: chores\n")
    elif change == "edit config.yaml":
        home.config.write_text("skills: {disabled: [tidy]}\n")
    else:
        new = tidy.with_name(".SKILL.md.tmp")
        new.write_text(tidy.read_text())
        os.replace(new, tidy)
    assert fp(home) != before


@pytest.mark.parametrize(
    "path",
    [
        "tidy/references/guide.md",
        "tidy/references/old/SKILL.md",  # an archived package inside a skill
        "tidy/notes.md",
        ".git/SKILL.md",
        "vendor/node_modules/x/SKILL.md",
        "../skill-bundles/readme.txt",
        "../state.db",
    ],
)
def test_files_hermes_does_not_read_for_commands_leave_the_fingerprint_alone(
    home: Home, path: str
) -> None:
    home.bundles.mkdir()
    before = fp(home)
    target = home.skills / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x")
    assert fp(home) == before


def test_two_homes_with_equal_files_differ_but_a_rescan_of_one_agrees(tmp_path: Path) -> None:
    a, b = Home(tmp_path / "a"), Home(tmp_path / "b")
    for h in (a, b):
        skill(h.skills, "tidy")
    assert fp(a) == fp(a) and fp(a) != fp(b)  # paths and inodes are part of the state


def test_an_external_roots_parent_is_not_watched_for_it(home: Home, tmp_path: Path) -> None:
    shared = tmp_path / "busy-user-home" / "shared"
    skill(shared, "review")
    home.external.append(shared)
    found = cw.scan(home.sources())
    assert found.dirs[str(shared)].tree and str(shared.parent) not in found.dirs


def test_a_symlink_loop_is_walked_a_bounded_number_of_directories(home: Home) -> None:
    (home.skills / "loop").symlink_to(home.skills)
    found = cw.scan(home.sources(), max_dirs=50)
    assert 0 < len([d for d in found.dirs.values() if d.tree]) <= 50 and found.truncated
    assert not cw.scan(home.sources()._replace(roots=[home.skills / "tidy"])).truncated


def test_the_scan_watches_the_tree_and_the_entries_it_looks_for_from_above(home: Home) -> None:
    found = cw.scan(home.sources())
    above = found.dirs[str(home.base)]
    assert above.names == {"skills", "skill-bundles", "config.yaml"} and not above.tree
    assert found.dirs[str(home.skills)].tree and found.dirs[str(home.skills / "tidy")].tree
    assert above.covers("config.yaml", False) and not above.covers("state.db-journal", False)
    inside = found.dirs[str(home.skills / "tidy")]
    assert inside.covers("SKILL.md", False) and inside.covers("new", True)
    assert inside.covers(".drafts", True) and not inside.covers("notes.md", False)


class Reports:
    def __init__(self) -> None:
        self.q: queue.Queue[str] = queue.Queue()
        self.all: list[str] = []

    def __call__(self, fingerprint: str) -> None:
        self.all.append(fingerprint)
        self.q.put(fingerprint)

    def next(self) -> str:
        return self.q.get(timeout=WAIT_S)


@pytest.fixture
def watched(home: Home) -> Iterator[tuple[cw.CommandWatch, Reports]]:
    reports = Reports()
    watch = cw.CommandWatch(home.sources, reports, quiet_s=0.02)
    watch.start()
    assert reports.next() == fp(home)  # the starting state, reported once
    yield watch, reports
    watch.stop()


def test_a_check_with_nothing_changed_reports_nothing(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    watch, reports = watched
    watch.check()
    watch.check()
    assert len(reports.all) == 1


def test_an_edit_made_on_disk_is_reported_once_with_the_new_state(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    tidy = home.skills / "tidy" / "SKILL.md"
    tmp = tidy.with_name(".SKILL.md.swp")  # an editor's temp file, then its rename
    tmp.write_text(tidy.read_text().replace("does things", "tidies"))
    os.replace(tmp, tidy)
    assert reports.next() == fp(home)
    skill(home.skills, "sweep")  # the next change: nothing came in between
    assert reports.next() == fp(home)
    assert len(reports.all) == 3


def test_a_skill_made_in_a_new_directory_tree_is_seen(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    skill(home.skills / "a" / "b", "deep")  # directories made just before their file
    state = reports.next()
    if state != fp(home):  # the directories were seen first, their file after
        state = reports.next()
    assert state == fp(home)
    (home.skills / "a" / "b" / "deep" / "SKILL.md").write_text("---\nname: deep\n---\nNew.\n")
    assert reports.next() == fp(home)  # the new directories are watched too


def test_noise_beside_the_command_files_reports_nothing(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    (home.base / "state.db-journal").write_text("x")  # hermes' own files in its home
    (home.base / "state.db-journal").unlink()
    (home.skills / "tidy" / "notes.md").write_text("x")
    (home.skills / "tidy" / "references").mkdir()
    (home.skills / "tidy" / "SKILL.md").write_text("---\nname: tidy\n---\nChanged.\n")
    assert reports.next() == fp(home)
    skill(home.skills, "sweep")
    assert reports.next() == fp(home)
    assert len(reports.all) == 3


def test_a_skills_directory_made_after_the_start_is_watched(tmp_path: Path) -> None:
    h = Home(tmp_path / "home")
    h.base.mkdir()
    reports = Reports()
    watch = cw.CommandWatch(h.sources, reports, quiet_s=0.02)
    watch.start()
    try:
        first = reports.next()
        h.skills.mkdir()
        skill(h.skills, "tidy")
        state = reports.next()
        if state != fp(h):
            state = reports.next()
        assert state == fp(h) != first
    finally:
        watch.stop()


def test_config_yaml_replaced_by_rename_is_reported(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    new = home.base / "config.yaml.tmp"
    new.write_text("skills: {disabled: [tidy]}\n")
    os.replace(new, home.config)
    assert reports.next() == fp(home)


def test_an_external_directory_named_by_config_is_watched_once_config_names_it(
    home: Home, tmp_path: Path, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    shared = tmp_path / "shared"
    skill(shared, "review")
    home.external.append(shared)  # what config.yaml now says
    home.config.write_text("skills: {external_dirs: [shared]}\n")
    assert reports.next() == fp(home)
    skill(shared, "lint")
    assert reports.next() == fp(home)


def test_a_failing_report_is_logged_and_the_next_change_is_reported(
    home: Home, capfd: pytest.CaptureFixture[str]
) -> None:
    calls: list[str] = []

    def report(fingerprint: str) -> None:
        calls.append(fingerprint)
        if len(calls) == 1:
            raise OSError("pipe closed")

    watch = cw.CommandWatch(home.sources, report)
    watch.check()
    skill(home.skills, "sweep")
    watch.check()
    assert len(calls) == 2 and "pipe closed" in capfd.readouterr().err


def test_a_failing_scan_is_logged_and_reports_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    def broken() -> cw.Sources:
        raise KeyError("skills")

    calls: list[str] = []
    cw.CommandWatch(broken, calls.append).check()
    assert calls == [] and "KeyError" in capfd.readouterr().err


def test_a_skill_directory_deleted_and_made_again_is_watched_again(
    home: Home, watched: tuple[cw.CommandWatch, Reports]
) -> None:
    _, reports = watched
    for round_ in range(3):  # a reinstall: the directory goes, and comes back at once
        shutil.rmtree(home.skills / "tidy")
        skill(home.skills, "tidy", f"version {round_}")
        state = reports.next()
        while state != fp(home):
            state = reports.next()
    (home.skills / "tidy" / "SKILL.md").write_text("---\nname: tidy\n---\nEdited.\n")
    assert reports.next() == fp(home)  # seen: the new directory has a watch of its own


def test_without_inotify_the_start_reports_and_checks_still_report_changes(
    home: Home, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def missing() -> inotify.Inotify:
        raise OSError(38, "inotify is not available here")

    monkeypatch.setattr(inotify, "Inotify", missing)
    reports = Reports()
    watch = cw.CommandWatch(home.sources, reports)
    before = set(threading.enumerate())
    watch.start()  # on this thread: nothing is left to wait for
    assert reports.all == [fp(home)]
    assert "not watched" in capfd.readouterr().err
    assert set(threading.enumerate()) <= before  # no watching thread
    skill(home.skills, "sweep")  # as skill_manage would, then its look
    watch.check()
    assert reports.all == [reports.all[0], fp(home)]
    watch.stop()  # nothing to stop
