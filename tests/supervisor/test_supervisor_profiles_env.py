"""Profiles: the keys each profile's .env defines, and a worker's and the template's environment."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_stdio.supervisor.profiles import dotenv_keys, template_env, worker_env
from hermes_stdio.wire import ErrorType, RpcError

from .profiles_helpers import write

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


@pytest.mark.parametrize(
    "text",
    [
        "security: [unclosed\n",  # a syntax error
        "- security: {allow_lazy_installs: true}\n",  # no mapping
        "a: &x 1\nb: *y\n",  # an alias to nothing
        "since: 2020-13-45\n",  # a date no constructor takes
        "key: !!binary 'xx'\n",
        "x: \t" + "[" * 300 + "]" * 300 + "\n",  # libyaml reads the tab, but not so deep
    ],
)
def test_worker_env_refuses_a_config_hermes_would_ignore_and_run_on_its_defaults(
    home: Path, text: str
) -> None:
    write(home / "profiles" / "work" / "config.yaml", text)
    with pytest.raises(RpcError) as err:
        worker_env(home, "work", {})
    assert err.value.kind is ErrorType.PROFILE_UNREADABLE
    assert err.value.data == {"profile": "work", "file": "config.yaml"}


def test_worker_env_refuses_a_config_that_is_not_utf8(home: Path) -> None:
    (home / "profiles" / "work" / "config.yaml").write_bytes(b"model: caf\xe9\n")
    with pytest.raises(RpcError) as err:
        worker_env(home, "work", {})
    assert err.value.kind is ErrorType.PROFILE_UNREADABLE


@pytest.mark.parametrize("text", ["", "null\n", "# only a comment\n", "---\n"])
def test_worker_env_accepts_a_config_hermes_reads_as_empty(home: Path, text: str) -> None:
    write(home / "profiles" / "work" / "config.yaml", text)
    assert worker_env(home, "work", {})["HERMES_DISABLE_LAZY_INSTALLS"] == "1"


def test_worker_env_reads_a_config_with_a_tab_as_hermes_libyaml_does(home: Path) -> None:
    # PyYAML's own parser refuses a tab after a colon; libyaml, which hermes uses, takes it.
    write(home / "profiles" / "work" / "config.yaml", "security:\n  allow_lazy_installs:\ttrue\n")
    assert "HERMES_DISABLE_LAZY_INSTALLS" not in worker_env(home, "work", {})


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


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _symlink_to_fifo(path: Path) -> None:
    os.mkfifo(path.with_name("pipe"))
    path.symlink_to("pipe")


@pytest.mark.parametrize("file", ["config.yaml", ".env", "SOUL.md"])
@pytest.mark.parametrize("make", [_fifo, _directory, _symlink_to_fifo])
def test_worker_env_refuses_a_config_env_or_soul_that_is_not_a_regular_file(
    home: Path, file: str, make: Callable[[Path], None]
) -> None:
    make(home / "profiles" / "work" / file)
    with pytest.raises(RpcError) as err:
        worker_env(home, "work", {})
    assert err.value.kind is ErrorType.PROFILE_UNREADABLE
    assert err.value.data == {"profile": "work", "file": file}
    assert worker_env(home, "play", {})["HERMES_STDIO_PROFILE"] == "play"  # only that profile


def test_worker_env_refuses_a_config_nested_deeper_than_the_pure_python_parser_follows(
    home: Path,
) -> None:
    config = home / "profiles" / "work" / "config.yaml"
    write(config, "hostile: " + "[" * 5000 + "]" * 5000 + "\n")
    for _ in range(2):  # and again when the parse is remembered
        with pytest.raises(RpcError) as err:
            worker_env(home, "work", {})
        assert err.value.kind is ErrorType.PROFILE_UNREADABLE
        assert err.value.data == {"profile": "work", "file": "config.yaml"}
    write(config, "nested: " + "[" * 50 + "]" * 50 + "\n")
    assert worker_env(home, "work", {})["HERMES_STDIO_PROFILE"] == "work"


def test_worker_env_accepts_a_missing_config_and_env_and_a_dangling_symlink(home: Path) -> None:
    (home / "profiles" / "work" / ".env").symlink_to("nowhere")
    assert worker_env(home, "work", {})["HERMES_STDIO_PROFILE"] == "work"


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
