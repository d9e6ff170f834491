"""launch: which Python runs a worker, and the argv it is started with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_stdio.supervisor.launch import PACKAGE_PARENT, find_agent_python, worker_command

SPAWN_TIMEOUT = 60.0


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def empty_path(tmp_path: Path) -> str:
    """A PATH with no `hermes` on it."""
    empty = tmp_path / "emptybin"
    empty.mkdir()
    return str(empty)


# --- find_agent_python -----------------------------------------------------


def test_find_agent_python_prefers_the_cli_value_over_everything(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    executable(root / "venv" / "bin" / "python")
    environ = {"HERMES_AGENT_PYTHON": "/env/python", "HERMES_AGENT_ROOT": str(root)}
    assert find_agent_python("/cli/python", environ) == "/cli/python"


def test_find_agent_python_uses_hermes_agent_python_before_the_agent_root(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    executable(root / "venv" / "bin" / "python")
    environ = {"HERMES_AGENT_PYTHON": "/env/python", "HERMES_AGENT_ROOT": str(root)}
    assert find_agent_python(None, environ) == "/env/python"


@pytest.mark.parametrize("venv", ["venv", ".venv"])
def test_find_agent_python_finds_a_venv_inside_hermes_agent_root(
    tmp_path: Path, empty_path: str, venv: str
) -> None:
    root = tmp_path / "agent"
    python = executable(root / venv / "bin" / "python")
    environ = {"HERMES_AGENT_ROOT": str(root), "PATH": empty_path}
    assert find_agent_python(None, environ) == str(python)


def test_find_agent_python_prefers_venv_over_dot_venv_in_the_agent_root(
    tmp_path: Path, empty_path: str
) -> None:
    root = tmp_path / "agent"
    python = executable(root / "venv" / "bin" / "python")
    executable(root / ".venv" / "bin" / "python")
    assert find_agent_python(None, {"HERMES_AGENT_ROOT": str(root), "PATH": empty_path}) == str(
        python
    )


def test_find_agent_python_skips_a_non_executable_venv_python(
    tmp_path: Path, empty_path: str
) -> None:
    root = tmp_path / "agent"
    (root / "venv" / "bin").mkdir(parents=True)
    (root / "venv" / "bin" / "python").write_text("", encoding="utf-8")
    environ = {"HERMES_AGENT_ROOT": str(root), "PATH": empty_path}
    assert find_agent_python(None, environ) == sys.executable


def test_find_agent_python_prefers_the_agent_root_over_a_hermes_script_on_path(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agent"
    venv_python = executable(root / ".venv" / "bin" / "python")
    other = executable(tmp_path / "other" / "python3")
    bindir = tmp_path / "bin"
    executable(bindir / "hermes", f"#!{other}\nprint('hi')\n")
    environ = {"HERMES_AGENT_ROOT": str(root), "PATH": str(bindir)}
    assert find_agent_python(None, environ) == str(venv_python)


def test_find_agent_python_reads_an_absolute_python_shebang_of_hermes_on_path(
    tmp_path: Path,
) -> None:
    python = executable(tmp_path / "pyhome" / "bin" / "python3")
    bindir = tmp_path / "bin"
    executable(bindir / "hermes", f"#!{python}\nimport sys\n")
    assert find_agent_python(None, {"PATH": str(bindir)}) == str(python)


def test_find_agent_python_reads_an_env_python_shebang_of_hermes_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pybin = tmp_path / "pybin"
    python = executable(pybin / "python3")
    bindir = tmp_path / "bin"
    executable(bindir / "hermes", "#!/usr/bin/env python3\nimport sys\n")
    path = os.pathsep.join([str(pybin), str(bindir)])
    # The env form resolves the interpreter with the process PATH, so set both.
    monkeypatch.setenv("PATH", path)
    assert find_agent_python(None, {"PATH": path}) == str(python)


def test_find_agent_python_ignores_a_hermes_shebang_that_is_not_python(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    executable(bindir / "hermes", "#!/bin/sh\necho hi\n")
    assert find_agent_python(None, {"PATH": str(bindir)}) == sys.executable


def test_find_agent_python_falls_back_to_its_own_interpreter(empty_path: str) -> None:
    assert find_agent_python(None, {"PATH": empty_path}) == sys.executable


# --- worker_command --------------------------------------------------------


def test_worker_command_for_its_own_interpreter_runs_the_worker_module() -> None:
    argv = worker_command(sys.executable, "work", ["--no-preload", "--worker-key", "k"])
    assert argv == [
        sys.executable,
        "-P",
        "-m",
        "hermes_stdio.worker.main",
        "--profile",
        "work",
        "--no-preload",
        "--worker-key",
        "k",
    ]


def test_worker_command_for_a_foreign_interpreter_bootstraps_with_the_package_parent() -> None:
    argv = worker_command("/opt/agent/bin/python", "work", ["--no-preload"])
    assert argv[0] == "/opt/agent/bin/python"
    assert argv[1:3] == ["-P", "-c"]
    assert "hermes_stdio.worker.main" in argv[3]
    assert argv[4:] == [PACKAGE_PARENT, "--profile", "work", "--no-preload"]


def test_package_parent_is_the_directory_holding_the_hermes_stdio_package() -> None:
    assert (Path(PACKAGE_PARENT) / "hermes_stdio" / "__init__.py").is_file()


def test_worker_command_bootstrap_really_imports_the_worker_main(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign-python"
    foreign.symlink_to(sys.executable)
    argv = worker_command(str(foreign), "default", ["--help"])
    assert argv[2] == "-c"  # the bootstrap form, not -m
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        argv, capture_output=True, timeout=SPAWN_TIMEOUT, env=env, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    out = done.stdout.decode()
    assert out.startswith("usage: hermes_stdio.worker")
    assert "--profile" in out
