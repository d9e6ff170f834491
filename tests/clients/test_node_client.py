"""The Node client (clients/node): its generated types match the schema, it builds, and its
own tests pass against the real ``hermes-stdio`` binary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NPM is None, reason="npm is not installed")


def npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    assert NPM is not None
    env = {**os.environ, "HERMES_STDIO_BIN": str(Path(sys.executable).with_name("hermes-stdio"))}
    return subprocess.run(
        [NPM, *args], cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def installed() -> None:
    if not (NODE_DIR / "node_modules").is_dir():
        result = npm("ci", "--no-audit", "--no-fund", timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_checked_in_typescript_types_are_generated_from_the_current_schema(installed: None) -> None:
    result = npm("run", "check-gen", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_node_client_builds_and_its_tests_pass_against_the_real_binary(installed: None) -> None:
    result = npm("test", timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
