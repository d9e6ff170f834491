"""The code passes the project's linters and the strict type checker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_no_lint_errors() -> None:
    result = run("ruff", "check", "hermes_stdio", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_ruff_formatted() -> None:
    result = run("ruff", "format", "--check", "hermes_stdio", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_finds_no_type_errors() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
