"""fence: hermes' read deny-list and write guards also refuse another profile's files."""

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


def write_module(own: Path, root: Path, resolve: object = None) -> types.SimpleNamespace:
    module = types.SimpleNamespace(
        get_write_denied_error=lambda path, *, verb="Write": None,
        is_write_denied=lambda path: False,
        _shared_is_write_denied=lambda path: False,
        _check_sensitive_path=lambda filepath, task_id="default": None,
    )
    if resolve is not None:
        module._resolve_path_for_task = resolve
    fence.install([module], own, root)
    return module


def test_writes_into_another_profile_are_refused_by_every_write_check(tmp_path: Path) -> None:
    root, work, _ = homes(tmp_path)
    for own, theirs, mine in (
        (work, root / "config.yaml", work / "notes.md"),
        (root, work / "config.yaml", root / "notes.md"),
    ):
        module = write_module(own, root)
        assert fence.REFUSED_WRITE in module.get_write_denied_error(str(theirs))
        assert module.is_write_denied(str(theirs)) and module._shared_is_write_denied(str(theirs))
        assert fence.REFUSED_WRITE in module._check_sensitive_path(str(theirs))
        assert module.get_write_denied_error(str(mine)) is None
        assert not module.is_write_denied(str(mine))
        assert module._check_sensitive_path(str(mine)) is None


def test_a_relative_write_is_judged_where_the_task_resolves_it(tmp_path: Path) -> None:
    root, work, play = homes(tmp_path)
    module = write_module(play, root, resolve=lambda path, task_id: work / path)
    assert fence.REFUSED_WRITE in module._check_sensitive_path("config.yaml", "t1")


def test_a_symlinked_profiles_directory_does_not_move_the_fence(tmp_path: Path) -> None:
    root = tmp_path / "hermes"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "work").mkdir(parents=True)
    (elsewhere / "play").mkdir()
    (root / "profiles").symlink_to(elsewhere)
    work = (root / "profiles" / "work").resolve()
    check = fenced_module(work, root).get_read_block_error
    assert check(str(root / "auth.json")) == fence.REFUSED
    assert check(str(root / "profiles" / "play" / "auth.json")) == fence.REFUSED
    assert check(str(work / "notes.md")) is None
    default = fenced_module(root, root).get_read_block_error
    assert default(str(elsewhere / "play" / "auth.json")) == fence.REFUSED
