"""Profiles: name rules, profile homes and home resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_stdio.supervisor.profiles import DEFAULT_PROFILE, check_name, profile_home, resolve_home
from hermes_stdio.wire import ErrorType, RpcError

from .profiles_helpers import write

# --- check_name ------------------------------------------------------------


@pytest.mark.parametrize("name", [None, "default"])
def test_check_name_maps_none_and_default_to_the_default_profile(name: str | None) -> None:
    assert check_name(name) == DEFAULT_PROFILE


@pytest.mark.parametrize("name", ["work", "a", "0", "my-profile_2", "a" * 64, "9lives"])
def test_check_name_returns_valid_names_unchanged(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["../x", "a/b", "", "UPPER", "a" * 65, "-x", ".x", "_x", "a\x00b", "a b", " a", "a\tb"],
)
def test_check_name_rejects_names_outside_the_hermes_rule_as_invalid_profile(name: str) -> None:
    with pytest.raises(RpcError) as err:
        check_name(name)
    assert err.value.kind is ErrorType.INVALID_PROFILE


def test_check_name_rejects_a_name_with_a_trailing_newline() -> None:
    with pytest.raises(RpcError) as err:
        check_name("abc\n")
    assert err.value.kind is ErrorType.INVALID_PROFILE


# --- profile_home ----------------------------------------------------------


def test_profile_home_of_default_is_the_hermes_home_itself(home: Path) -> None:
    assert profile_home(home, "default") == home


def test_profile_home_of_a_named_profile_is_under_profiles(home: Path) -> None:
    assert profile_home(home, "work") == home / "profiles" / "work"


def test_profile_home_of_a_missing_profile_raises_unknown_profile(home: Path) -> None:
    with pytest.raises(RpcError) as err:
        profile_home(home, "nope")
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE


def test_profile_home_of_a_plain_file_in_profiles_raises_unknown_profile(home: Path) -> None:
    write(home / "profiles" / "file", "not a dir")
    with pytest.raises(RpcError) as err:
        profile_home(home, "file")
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE


def test_profile_home_refuses_a_symlink_that_points_outside_profiles(
    home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (home / "profiles" / "escape").symlink_to(outside, target_is_directory=True)
    with pytest.raises(RpcError) as err:
        profile_home(home, "escape")
    assert err.value.kind is ErrorType.INVALID_PROFILE


def test_profile_home_rejects_an_invalid_name_before_touching_the_disk(home: Path) -> None:
    with pytest.raises(RpcError) as err:
        profile_home(home, "../profiles/work")
    assert err.value.kind is ErrorType.INVALID_PROFILE


# --- resolve_home ----------------------------------------------------------


def test_resolve_home_prefers_the_cli_value_over_hermes_home(tmp_path: Path) -> None:
    cli, env_home = tmp_path / "cli", tmp_path / "env"
    got = resolve_home(str(cli), {"HERMES_HOME": str(env_home)})
    assert got == cli.resolve()


def test_resolve_home_uses_hermes_home_when_no_cli_value(tmp_path: Path) -> None:
    env_home = tmp_path / "env"
    assert resolve_home(None, {"HERMES_HOME": str(env_home)}) == env_home.resolve()


def test_resolve_home_falls_back_to_dot_hermes_in_the_user_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_home(None, {}) == (tmp_path / ".hermes").resolve()


def test_resolve_home_ignores_an_empty_hermes_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_home(None, {"HERMES_HOME": ""}) == (tmp_path / ".hermes").resolve()
