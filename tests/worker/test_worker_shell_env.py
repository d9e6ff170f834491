"""shell_env: a changed .env reaches the commands of a shell whose saved state
predates it, through real bash."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from hermes_stdio.worker import shell_env


class Shell:
    """hermes' local shell as far as its saved state goes: each command's script
    sources the state, then evals the command."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.init_session()

    def init_session(self) -> None:
        self.state.write_text("export DEPLOY_REGION='old'\nexport MY_EXPORT='mine'\n")

    def _wrap_command(self, command: str, cwd: str) -> str:
        escaped = command.replace("'", "'\\''")
        return f"source {self.state} >/dev/null 2>&1\nbuiltin cd -- {cwd}\neval '{escaped}'"


class Changes:
    def __init__(self) -> None:
        self.generation, self.names = 0, {}  # name -> generation that changed it
        self.asked: list[int] = []

    def change(self, *names: str) -> None:
        self.generation += 1
        self.names.update(dict.fromkeys(names, self.generation))

    def __call__(self, since: int) -> tuple[int, list[str]]:
        self.asked.append(since)
        return self.generation, sorted(n for n, g in self.names.items() if g > since)


def installed() -> tuple[type[Any], Changes]:
    cls = type("LocalEnvironment", (Shell,), {})
    changes = Changes()
    assert shell_env.install(cls, changes)
    assert shell_env.install(cls, changes)  # once: not wrapped twice
    return cls, changes


def run(script: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", script],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout


ECHO = 'echo "region=${DEPLOY_REGION-unset} mine=${MY_EXPORT-unset}"'


def test_a_changed_name_takes_the_value_the_process_was_given_over_the_saved_state(
    tmp_path: Path,
) -> None:
    cls, changes = installed()
    shell = cls(tmp_path / "state.sh")
    env = {"DEPLOY_REGION": "eu-west-9", "MY_EXPORT": "from-the-worker"}
    assert run(shell._wrap_command(ECHO, str(tmp_path)), env) == "region=old mine=mine\n"
    changes.change("DEPLOY_REGION")
    script = shell._wrap_command(ECHO, str(tmp_path))
    assert "eu-west-9" not in script  # names only: a script is in the process table
    assert run(script, env) == "region=eu-west-9 mine=mine\n"  # what a command exported stays


def test_a_name_the_process_lacks_is_unset(tmp_path: Path) -> None:
    cls, changes = installed()
    shell = cls(tmp_path / "state.sh")
    changes.change("DEPLOY_REGION")  # removed, or a provider key hermes keeps from commands
    assert run(shell._wrap_command(ECHO, str(tmp_path)), {}) == "region=unset mine=mine\n"


def test_a_shell_gets_each_change_once_then_its_saved_state_holds_it(tmp_path: Path) -> None:
    cls, changes = installed()
    shell = cls(tmp_path / "state.sh")
    changes.change("DEPLOY_REGION")
    assert "DEPLOY_REGION" in shell._wrap_command(ECHO, str(tmp_path))
    assert "__hs_" not in shell._wrap_command(ECHO, str(tmp_path))  # recorded: not again
    changes.change("DEPLOY_REGION")
    assert "__hs_set_DEPLOY_REGION" in shell._wrap_command(ECHO, str(tmp_path))


def test_a_shell_started_after_a_change_is_not_given_it_again(tmp_path: Path) -> None:
    cls, changes = installed()
    changes.change("DEPLOY_REGION")
    shell = cls(tmp_path / "state.sh")  # its first state has the value already
    assert "__hs_" not in shell._wrap_command(ECHO, str(tmp_path))


def test_a_name_that_is_not_a_variables_is_never_put_in_a_script(tmp_path: Path) -> None:
    cls, changes = installed()
    shell = cls(tmp_path / "state.sh")
    changes.change("A;rm -rf ~", "DEPLOY_REGION")
    script = shell._wrap_command(ECHO, str(tmp_path))
    assert "rm -rf" not in script
    assert run(script, {"DEPLOY_REGION": "x"}) == "region=x mine=mine\n"


def test_a_class_without_hermes_methods_is_left_alone() -> None:
    cls = type("Other", (), {"_wrap_command": lambda self, c, d: c})
    assert not shell_env.install(cls, Changes())
    assert not hasattr(cls._wrap_command, shell_env.WRAPPED)
