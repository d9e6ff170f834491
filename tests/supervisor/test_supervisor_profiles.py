"""Profiles: name rules, profile homes, home resolution and a worker's environment."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_stdio.supervisor.profiles import (
    DEFAULT_PROFILE,
    check_name,
    describe,
    dotenv_keys,
    listed_profiles,
    profile_home,
    resolve_home,
    template_env,
    worker_env,
)
from hermes_stdio.wire import ErrorType, RpcError


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    (root / "profiles" / "work").mkdir(parents=True)
    (root / "profiles" / "play").mkdir(parents=True)
    return root.resolve()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


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


# --- dotenv_keys -----------------------------------------------------------


def test_dotenv_keys_reads_plain_and_exported_keys_and_skips_comments_and_blanks(
    tmp_path: Path,
) -> None:
    env = tmp_path / ".env"
    write(
        env,
        "# a comment\n\nPLAIN=1\nexport EXPORTED=2\n  SPACED = 3\n#COMMENTED=4\n"
        "   \nnot a line\nQUOTED='x=y'\n",
    )
    assert dotenv_keys(env) == {"PLAIN", "EXPORTED", "SPACED", "QUOTED"}


def test_dotenv_keys_reads_keys_as_python_dotenv_does_quoted_names_included(
    tmp_path: Path,
) -> None:
    env = tmp_path / ".env"
    write(env, "'SINGLE_QUOTED'=a\nexport   SPACED_OUT   =c\nMULTI=\"x\nNOT_A_KEY=y\"\n")
    assert {"SINGLE_QUOTED", "SPACED_OUT", "MULTI"} <= dotenv_keys(env)


def test_dotenv_keys_reads_a_utf16_file_as_hermes_does(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_bytes("WIDE_TOKEN=v\n".encode("utf-16"))
    assert "WIDE_TOKEN" in dotenv_keys(env)


def test_dotenv_keys_counts_a_hermes_name_hermes_would_split_off_a_line(tmp_path: Path) -> None:
    # hermes splits "...valueGITHUB_TOKEN=x" into a line of its own (a lost line end).
    env = tmp_path / ".env"
    write(env, "OPENAI_API_KEY=sk-abcGITHUB_TOKEN=ghp\n")
    among = ["GITHUB_TOKEN", "OPENAI_API_KEY", "PATH", "lower_case"]
    assert dotenv_keys(env, among) == {"OPENAI_API_KEY", "GITHUB_TOKEN"}
    assert dotenv_keys(env) == {"OPENAI_API_KEY"}


@pytest.mark.parametrize(
    "value",
    [
        "x" * 400_000,  # no "=": each NAME= search rescanned the rest of the run
        "QUJD" * 100_000 + "==",  # base64 padding: every suffix of the run was tried
        "A_" * 200_000 + "=",
    ],
)
def test_a_long_value_in_a_dotenv_never_stalls_reading_its_keys(tmp_path: Path, value: str) -> None:
    # Quadratic work here held the interpreter lock for minutes (7 s for 40 KB),
    # freezing the supervisor. In a child, so the bounded wait can end it.
    env = tmp_path / ".env"
    write(env, f"KEY={value}\nOTHER_TOKEN=1\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from hermes_stdio.supervisor.profiles import dotenv_keys\n"
        "print(sorted(dotenv_keys(Path(sys.argv[1]), ['OTHER_TOKEN', 'A_A', 'PATH'])))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(env)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    keys = set(ast.literal_eval(out.stdout))
    assert {"KEY", "OTHER_TOKEN"} <= keys and "PATH" not in keys


def test_worker_env_drops_a_quoted_key_another_profiles_env_defines(home: Path) -> None:
    write(home / "profiles" / "work" / ".env", "'WORK_TOKEN'=secret\n")
    env = worker_env(home, "default", {"WORK_TOKEN": "secret", "PATH": "/bin"})
    assert "WORK_TOKEN" not in env and env["PATH"] == "/bin"
    assert "WORK_TOKEN" not in template_env(home, {"WORK_TOKEN": "secret"})


def test_worker_env_keeps_a_foreign_key_its_own_env_only_mentions_in_a_comment(
    home: Path,
) -> None:
    write(home / "profiles" / "work" / ".env", "GITHUB_TOKEN=work\n")
    write(home / ".env", "# GITHUB_TOKEN=set me\n")
    assert "GITHUB_TOKEN" not in worker_env(home, "default", {"GITHUB_TOKEN": "work"})


def test_dotenv_keys_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    assert dotenv_keys(tmp_path / "absent.env") == set()


# --- worker_env ------------------------------------------------------------


def test_worker_env_of_a_named_profile_drops_keys_of_other_profiles_and_the_default(
    home: Path,
) -> None:
    write(home / ".env", "DEFAULT_SECRET=d\n")
    write(home / "profiles" / "play" / ".env", "export PLAY_SECRET=p\n")
    base = {"DEFAULT_SECRET": "d", "PLAY_SECRET": "p", "PATH": "/bin"}
    env = worker_env(home, "work", base)
    assert "DEFAULT_SECRET" not in env
    assert "PLAY_SECRET" not in env
    assert env["PATH"] == "/bin"


def test_worker_env_of_the_default_profile_drops_keys_of_named_profiles(home: Path) -> None:
    write(home / ".env", "DEFAULT_SECRET=d\n")
    write(home / "profiles" / "work" / ".env", "WORK_SECRET=w\n")
    env = worker_env(home, "default", {"DEFAULT_SECRET": "d", "WORK_SECRET": "w"})
    assert "WORK_SECRET" not in env
    assert env["DEFAULT_SECRET"] == "d"


def test_worker_env_keeps_a_key_its_own_env_defines_even_if_another_profile_does(
    home: Path,
) -> None:
    write(home / "profiles" / "work" / ".env", "SHARED=w\n")
    write(home / "profiles" / "play" / ".env", "SHARED=p\n")
    env = worker_env(home, "work", {"SHARED": "inherited"})
    assert env["SHARED"] == "inherited"


def test_worker_env_does_not_mutate_the_base_environment(home: Path) -> None:
    write(home / ".env", "DEFAULT_SECRET=d\n")
    base = {"DEFAULT_SECRET": "d"}
    worker_env(home, "work", base)
    assert base == {"DEFAULT_SECRET": "d"}


def test_worker_env_drops_inherited_per_process_hermes_state(home: Path) -> None:
    base = {
        "HERMES_SESSION_ID": "s",
        "TERMINAL_CWD": "/x",
        "HERMES_STDIO_WORKER_KEY": "k",
        "HERMES_STDIO_PROFILE": "other",
        "KEEP_ME": "1",
    }
    env = worker_env(home, "work", base)
    assert "HERMES_SESSION_ID" not in env
    assert "TERMINAL_CWD" not in env
    assert "HERMES_STDIO_WORKER_KEY" not in env
    assert env["KEEP_ME"] == "1"


def test_worker_env_sets_hermes_home_and_the_profile_name(home: Path) -> None:
    env = worker_env(home, "work", {"HERMES_HOME": "/somewhere/else"})
    assert env["HERMES_HOME"] == str(home / "profiles" / "work")
    assert env["HERMES_STDIO_PROFILE"] == "work"
    default = worker_env(home, "default", {})
    assert default["HERMES_HOME"] == str(home)
    assert default["HERMES_STDIO_PROFILE"] == "default"


def test_worker_env_of_a_missing_profile_raises_unknown_profile(home: Path) -> None:
    with pytest.raises(RpcError) as err:
        worker_env(home, "ghost", {})
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE


@pytest.mark.parametrize(
    "config",
    [
        None,
        "security:\n  allow_lazy_installs: false\n",
        "security:\n  allow_lazy_installs: 'true'\n",
    ],
)
def test_worker_env_disables_lazy_installs_unless_config_allows_them(
    home: Path, config: str | None
) -> None:
    if config is not None:
        write(home / "profiles" / "work" / "config.yaml", config)
    env = worker_env(home, "work", {})
    assert env["HERMES_DISABLE_LAZY_INSTALLS"] == "1"


def test_worker_env_disables_lazy_installs_when_config_is_not_valid_yaml(home: Path) -> None:
    write(home / "profiles" / "work" / "config.yaml", "security: [unclosed\n")
    assert worker_env(home, "work", {})["HERMES_DISABLE_LAZY_INSTALLS"] == "1"


def test_worker_env_leaves_lazy_installs_alone_when_config_allows_them(home: Path) -> None:
    write(home / "profiles" / "work" / "config.yaml", "security:\n  allow_lazy_installs: true\n")
    assert "HERMES_DISABLE_LAZY_INSTALLS" not in worker_env(home, "work", {})
    inherited = worker_env(home, "work", {"HERMES_DISABLE_LAZY_INSTALLS": "0"})
    assert inherited["HERMES_DISABLE_LAZY_INSTALLS"] == "0"


def test_worker_env_reads_the_lazy_install_setting_from_its_own_profile_only(home: Path) -> None:
    write(home / "config.yaml", "security:\n  allow_lazy_installs: true\n")
    assert worker_env(home, "work", {})["HERMES_DISABLE_LAZY_INSTALLS"] == "1"
    assert "HERMES_DISABLE_LAZY_INSTALLS" not in worker_env(home, "default", {})


def test_worker_env_drops_default_home_keys_even_if_a_profiles_default_dir_exists(
    home: Path,
) -> None:
    write(home / ".env", "DEFAULT_SECRET=d\n")
    (home / "profiles" / "default").mkdir()
    assert "DEFAULT_SECRET" not in worker_env(home, "work", {"DEFAULT_SECRET": "d"})


# --- template_env -----------------------------------------------------------


def test_template_env_holds_no_profiles_keys_no_hermes_home_and_no_process_state(
    home: Path,
) -> None:
    write(home / ".env", "DEFAULT_SECRET=d\n")
    write(home / "profiles" / "work" / ".env", "WORK_SECRET=w\n")
    base = {
        "DEFAULT_SECRET": "d",
        "WORK_SECRET": "w",
        "HERMES_HOME": str(home),
        "HERMES_SESSION_ID": "s",
        "TERMINAL_CWD": "/x",
        "HERMES_STDIO_PROFILE": "work",
        "PATH": "/bin",
    }
    assert template_env(home, base) == {"PATH": "/bin"}
    assert base["DEFAULT_SECRET"] == "d"  # the base is not mutated


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
    assert worker_env(home, "work", {})["HERMES_HOME"] == str(work)


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
    from hermes_stdio.supervisor import profiles

    monkeypatch.setattr(profiles, "_SETTLED_NS", 0)  # ctime cannot be set back
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

    from hermes_stdio.supervisor import profiles

    monkeypatch.setattr(profiles, "_SETTLED_NS", 0)
    work = home / "profiles" / "work"
    write(work / "config.yaml", "model: {default: m1}\n")
    assert describe(work)[0] == "m1"
    (work / "config.yaml").unlink()
    os.mkfifo(work / "config.yaml")
    assert describe(work)[0] is None
