"""repo_files on real trees: git's view in a work tree (ignored files left out),
a pruned walk elsewhere, a listing kept briefly per root."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hermes_stdio.worker import repo_files
from hermes_stdio.worker.repo_files import RepoFiles


def make(root: Path, *rels: str) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_work_tree_lists_tracked_and_untracked_files_but_not_ignored_ones(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "-q")
    make(tmp_path, "src/a.py", ".gitignore", "build/out.o", "notes.txt", ".github/ci.yml")
    (tmp_path / ".gitignore").write_text("build/\n")
    git(tmp_path, "add", "src/a.py", ".gitignore")
    files, cut = RepoFiles().listing(str(tmp_path))
    assert sorted(files) == [".github/ci.yml", ".gitignore", "notes.txt", "src/a.py"]
    assert cut is False


def test_a_folder_inside_a_work_tree_lists_its_own_files_relative_to_it(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    make(tmp_path, "top.txt", "sub/inner.py", "sub/deeper/x.md")
    files, _ = RepoFiles().listing(str(tmp_path / "sub"))
    assert sorted(files) == ["deeper/x.md", "inner.py"]


def test_outside_a_work_tree_a_walk_leaves_out_hidden_and_build_folders(tmp_path: Path) -> None:
    make(
        tmp_path,
        "a.py",
        ".hidden_file",
        "pkg/b.py",
        ".venv/lib/c.py",
        "node_modules/d/index.js",
        "pkg/__pycache__/b.pyc",
    )
    files, cut = RepoFiles().listing(str(tmp_path))
    assert sorted(files) == [".hidden_file", "a.py", "pkg/b.py"]
    assert cut is False


def test_a_long_listing_is_cut_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repo_files, "MAX_FILES", 3)
    make(tmp_path, *(f"f{n}.txt" for n in range(5)))
    files, cut = RepoFiles().listing(str(tmp_path))
    assert len(files) == 3 and cut is True


def test_a_listing_is_kept_for_a_moment_then_read_again(tmp_path: Path) -> None:
    clock = Clock()
    listed = RepoFiles(clock)
    make(tmp_path, "a.txt")
    assert listed.listing(str(tmp_path))[0] == ["a.txt"]
    make(tmp_path, "b.txt")
    clock.now += repo_files.TTL_S / 2
    assert listed.listing(str(tmp_path))[0] == ["a.txt"]
    clock.now += repo_files.TTL_S
    assert listed.listing(str(tmp_path))[0] == ["a.txt", "b.txt"]


def test_only_the_latest_roots_are_kept(tmp_path: Path) -> None:
    clock = Clock()
    listed = RepoFiles(clock)
    roots = []
    for n in range(repo_files.KEPT + 1):
        root = tmp_path / f"r{n}"
        make(root, "a.txt")
        roots.append(root)
        listed.listing(str(root))
    make(roots[0], "new.txt")
    make(roots[-1], "new.txt")
    assert listed.listing(str(roots[-1]))[0] == ["a.txt"]  # still kept
    assert listed.listing(str(roots[0]))[0] == ["a.txt", "new.txt"]  # dropped: read again


def test_a_walk_that_takes_too_long_stops_and_says_it_was_cut(tmp_path: Path) -> None:
    make(tmp_path, "a/1.txt", "b/2.txt", "c/3.txt")

    class Slow(Clock):
        def __call__(self) -> float:
            self.now += repo_files.WALK_BUDGET_S / 2  # each look at the clock costs time
            return self.now

    files, cut = RepoFiles(Slow()).listing(str(tmp_path))
    assert cut is True and len(files) < 3


def test_a_folder_the_work_tree_ignores_is_walked(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    make(tmp_path, ".gitignore", ".venv/lib/site.py", ".venv/bin/tool.py")
    (tmp_path / ".gitignore").write_text(".venv/\n")
    files, _ = RepoFiles().listing(str(tmp_path / ".venv"))
    assert sorted(files) == ["bin/tool.py", "lib/site.py"]
