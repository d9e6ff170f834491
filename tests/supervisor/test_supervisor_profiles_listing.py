"""Profiles: listing, describing each from its files, and when a config is parsed again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_stdio.supervisor.profiles import (
    DEFAULT_PROFILE,
    active_name,
    describe,
    dotenv_keys,
    listed_profiles,
    listing,
    profile_home,
    worker_env,
)
from hermes_stdio.wire import ErrorType, RpcError

from .profiles_helpers import write


def test_listed_profiles_are_default_then_each_nameable_profile_by_name(
    home: Path, tmp_path: Path
) -> None:
    (home / "profiles" / "Bad Name").mkdir()
    (home / "profiles" / "default").mkdir()  # would shadow the real default
    (home / "profiles" / "notes.txt").write_text("not a profile")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (home / "profiles" / "escape").symlink_to(outside)
    listed = listed_profiles(home)
    assert listed == [
        (DEFAULT_PROFILE, home),
        ("play", home / "profiles" / "play"),
        ("work", home / "profiles" / "work"),
    ]
    for name, path in listed:
        assert profile_home(home, name) == path  # exactly what requests may name


def test_a_home_without_profiles_lists_only_default(tmp_path: Path) -> None:
    assert listed_profiles(tmp_path) == [(DEFAULT_PROFILE, tmp_path)]
    assert listed_profiles(tmp_path / "missing") == []


def test_describe_reads_model_provider_and_description_as_hermes_does(home: Path) -> None:
    work, play = home / "profiles" / "work", home / "profiles" / "play"
    write(work / "config.yaml", "model:\n  default: m1\n  provider: p1\n")
    write(work / "profile.yaml", "description: '  Day job '\n")
    write(play / "config.yaml", "model: m2\n")
    assert describe(work) == ("m1", "p1", "Day job")
    assert describe(play) == ("m2", None, "")
    write(play / "config.yaml", "model: [unclosed\n")
    write(play / "profile.yaml", "- a list\n")
    assert describe(play) == (None, None, "")
    assert describe(home) == (None, None, "")  # no files at all


def test_listing_gives_each_profiles_problem_the_one_a_worker_start_would_be_refused_for(
    home: Path,
) -> None:
    work, play = home / "profiles" / "work", home / "profiles" / "play"
    write(work / "config.yaml", "model:\n  default: m1\n  bad: [unclosed\n")
    write(play / "config.yaml", "model:\tm2\n")  # a tab: libyaml (hermes) reads it
    problems = {p.name: p.problem for p in listing(home)}
    assert problems["play"] is None and problems["default"] is None
    assert problems["work"] is not None and problems["work"].startswith("config.yaml ")
    with pytest.raises(RpcError) as err:
        worker_env(home, "work", {})
    assert problems["work"] in err.value.message  # the same reason
    assert describe(play) == ("m2", None, "")
    (play / "SOUL.md").mkdir()
    assert {p.name: p.problem for p in listing(home)}["play"] == "SOUL.md is not a regular file"


def test_describe_takes_only_plain_values_so_an_aliased_yaml_cannot_blow_up(home: Path) -> None:
    work = home / "profiles" / "work"
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    write(work / "profile.yaml", "\n".join(levels) + "\ndescription: *a8\n")  # 10**9 leaves
    write(work / "config.yaml", "model: {default: [m], provider: {x: 1}}\n")
    assert describe(work) == (None, None, "")


def test_a_fifo_or_broken_file_in_place_of_a_profiles_yaml_or_env_reads_as_empty(
    home: Path,
) -> None:
    import os

    work = home / "profiles" / "work"
    os.mkfifo(work / "config.yaml")  # opening it to read would block for ever
    os.mkfifo(work / ".env")
    (work / "profile.yaml").write_bytes(b"description: \xff\xfe\n")  # not UTF-8
    assert describe(work) == (None, None, "")
    assert dotenv_keys(work / ".env") == set()
    (work / "profile.yaml").write_text("[" * 100_000)  # nested past the recursion limit
    assert describe(work) == (None, None, "")
    with pytest.raises(RpcError) as err:  # refused, without blocking on the FIFO
        worker_env(home, "work", {})
    assert err.value.kind is ErrorType.PROFILE_UNREADABLE


def test_a_symlink_loop_is_an_invalid_profile_and_is_not_listed(home: Path) -> None:
    (home / "profiles" / "loop").symlink_to(home / "profiles" / "loop")
    with pytest.raises(RpcError) as err:
        profile_home(home, "loop")
    assert err.value.kind is ErrorType.INVALID_PROFILE
    assert "loop" not in [name for name, _ in listed_profiles(home)]


def test_a_second_name_for_another_profile_is_invalid_and_not_listed(home: Path) -> None:
    (home / "profiles" / "alias").symlink_to(home / "profiles" / "work")
    with pytest.raises(RpcError) as err:
        profile_home(home, "alias")
    assert err.value.kind is ErrorType.INVALID_PROFILE
    assert [name for name, _ in listed_profiles(home)] == [DEFAULT_PROFILE, "play", "work"]


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import yaml

    parsed: list[str] = []
    real = yaml.safe_load

    def counting(text: str) -> object:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(yaml, "safe_load", counting)
    return parsed


def test_a_settled_config_is_parsed_once_until_it_is_replaced(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    from hermes_stdio.transport import profile_files

    monkeypatch.setattr(profile_files, "_SETTLED_NS", 0)  # ctime cannot be set back
    parsed = _count_parses(monkeypatch)
    work = home / "profiles" / "work"
    write(work / "config.yaml", "model: {default: m1}\n")
    assert [describe(work)[0] for _ in range(3)] == ["m1"] * 3
    assert len(parsed) == 1
    # Replaced as editors and hermes' own atomic writes do: a new file, same size.
    write(work / "config.new", "model: {default: m2}\n")
    (work / "config.new").replace(work / "config.yaml")
    assert describe(work)[0] == "m2"
    assert len(parsed) == 2
    (work / "config.yaml").unlink()
    assert describe(work)[0] is None


def test_a_config_changed_in_the_last_seconds_is_parsed_every_time(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    parsed = _count_parses(monkeypatch)
    work = home / "profiles" / "work"
    # Rewritten in place within the clock's tick, a file keeps its size and times:
    # only its age tells that it may have changed since.
    write(work / "config.yaml", "model: {default: m1}\n")
    assert [describe(work)[0] for _ in range(2)] == ["m1"] * 2
    assert len(parsed) == 2


def test_a_fifo_put_in_place_of_a_parsed_config_reads_as_empty(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    import os

    from hermes_stdio.transport import profile_files

    monkeypatch.setattr(profile_files, "_SETTLED_NS", 0)
    work = home / "profiles" / "work"
    write(work / "config.yaml", "model: {default: m1}\n")
    assert describe(work)[0] == "m1"
    (work / "config.yaml").unlink()
    os.mkfifo(work / "config.yaml")
    assert describe(work)[0] is None


@pytest.mark.parametrize(
    ("written", "active"),
    [
        (None, "default"),  # no file: hermes' default
        ("work\n", "work"),
        ("  play  ", "play"),
        ("\n", "default"),  # empty: the default too
        ("gone\n", None),  # names no profile: none is active
    ],
)
def test_the_active_profile_is_the_one_hermes_active_profile_file_names(
    home: Path, written: str | None, active: str | None
) -> None:
    if written is not None:
        (home / "active_profile").write_text(written)
    assert [p.name for p in listing(home) if p.active] == ([active] if active else [])


def test_an_active_profile_file_that_is_not_regular_reads_as_default_and_is_never_opened(
    home: Path,
) -> None:
    os.mkfifo(home / "active_profile")  # hermes would hang reading it; nothing writes to it
    assert active_name(home) == DEFAULT_PROFILE
    assert [p.name for p in listing(home) if p.active] == ["default"]
