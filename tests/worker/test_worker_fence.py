"""fence: hermes' read deny-list also refuses another profile's files."""

from __future__ import annotations

import types
from pathlib import Path

from hermes_stdio.worker import fence


def homes(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "hermes"
    work, play = root / "profiles" / "work", root / "profiles" / "play"
    for d in (work, play):
        d.mkdir(parents=True)
    return root, work, play


def fenced_module(own: Path, root: Path, verdict: str | None = None) -> types.SimpleNamespace:
    module = types.SimpleNamespace(get_read_block_error=lambda path: verdict)
    fence.install([module], own, root)
    return module


def test_the_default_profile_may_not_read_under_profiles_but_may_read_its_own_files(
    tmp_path: Path,
) -> None:
    root, work, _ = homes(tmp_path)
    check = fenced_module(root, root).get_read_block_error
    assert check(str(work / "auth.json")) == fence.REFUSED
    assert check(str(root / "profiles")) == fence.REFUSED
    assert check(str(root / "notes.txt")) is None
    assert check(str(tmp_path / "elsewhere.txt")) is None


def test_a_named_profile_may_read_only_its_own_files_inside_the_hermes_root(
    tmp_path: Path,
) -> None:
    root, work, play = homes(tmp_path)
    check = fenced_module(play, root).get_read_block_error
    assert check(str(play / "notes.txt")) is None
    assert check(str(work / "notes.txt")) == fence.REFUSED
    assert check(str(root / "auth.json")) == fence.REFUSED  # the default profile's
    assert check(str(tmp_path / "elsewhere.txt")) is None


def test_a_symlink_into_another_profile_is_refused(tmp_path: Path) -> None:
    root, work, play = homes(tmp_path)
    (work / "auth.json").write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(work / "auth.json")
    assert fenced_module(play, root).get_read_block_error(str(link)) == fence.REFUSED


def test_hermes_own_verdict_comes_first_and_installing_twice_wraps_once(tmp_path: Path) -> None:
    root, work, play = homes(tmp_path)
    module = fenced_module(play, root, verdict="hermes says no")
    fence.install([module], play, root)
    assert module.get_read_block_error(str(work / "x")) == "hermes says no"
    assert module.get_read_block_error(str(play / "x")) == "hermes says no"


def test_the_hermes_root_is_the_default_home_or_two_levels_above_a_named_one(
    tmp_path: Path,
) -> None:
    root, work, _ = homes(tmp_path)
    assert fence.hermes_root(root, "default") == root
    assert fence.hermes_root(root, None) == root
    assert fence.hermes_root(work, "work") == root
