"""project/facts through the real binary and real hermes-agent: the project a directory
is in, as hermes' coding context finds it for its agents."""

from __future__ import annotations

from pathlib import Path

from hermes_stdio.testing.host import HostClient
from hermes_stdio.wire import ErrorType

from .conftest import refused


def test_a_directory_in_a_project_gives_its_root_files_and_verify_commands(
    host: HostClient, tmp_path: Path
) -> None:
    root = tmp_path / "kiwi"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "kiwi").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname='kiwi'\n[tool.pytest.ini_options]\n")
    (root / "uv.lock").write_text("")
    (root / "AGENTS.md").write_text("Run the tests.\n")
    got = host.request("project/facts", {"workspace": str(root / "src" / "kiwi")}, timeout=60)
    assert got == {
        "facts": {
            "root": str(root),
            "manifests": ["pyproject.toml"],
            "packageManagers": ["uv"],
            "verifyCommands": ["pytest"],
            "contextFiles": ["AGENTS.md"],
        }
    }


def test_a_directory_in_no_project_has_no_facts(host: HostClient, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("buy kiwis\n")
    assert host.request("project/facts", {"workspace": str(tmp_path / "notes")}) == {"facts": None}


def test_a_workspace_that_is_no_directory_here_is_invalid_params(
    host: HostClient, tmp_path: Path
) -> None:
    for workspace in ("relative/dir", str(tmp_path / "missing")):
        err = refused(host, "project/facts", {"workspace": workspace})
        assert err.kind is ErrorType.INVALID_PARAMS and err.data["field"] == "params.workspace"
