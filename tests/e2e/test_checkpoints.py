"""hermes' file checkpoints through the real binary and real hermes-agent: a profile with
checkpoints enabled snapshots a project before its agent writes there, and the host lists,
compares with and restores the snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "package.json").write_text("{}\n")  # a project marker: hermes checkpoints this dir
    (root / "notes.txt").write_text("original\n")
    return root


def enable_checkpoints(config_file: Path) -> None:
    config = yaml.safe_load(config_file.read_text())
    config["checkpoints"] = {"enabled": True, "max_snapshots": 10}
    config_file.write_text(yaml.safe_dump(config))


def agent_writes(host: HostClient, llm: ScriptedLLM, project: Path, **params: str) -> None:
    notes = project / "notes.txt"
    llm.enqueue(
        Reply.tool_call("write_file", {"path": str(notes), "content": "changed by agent\n"}),
        Reply.text(["done"]),
    )
    run = host.request("run/start", {"message": "edit", "workspace": str(project), **params})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert notes.read_text() == "changed by agent\n"


def test_a_checkpoint_taken_before_the_agent_writes_is_listed_compared_and_restored(
    host: HostClient, llm: ScriptedLLM, home: Path, project: Path
) -> None:
    enable_checkpoints(home / "config.yaml")
    agent_writes(host, llm, project)

    listed = host.request("checkpoint/list", {"directory": str(project)})
    assert (listed["enabled"], listed["directory"]) == (True, str(project.resolve()))
    [taken] = listed["checkpoints"]
    assert taken["reason"] == "before write_file"
    assert taken["shortHash"] and taken["hash"].startswith(taken["shortHash"])
    assert isinstance(taken["createdAt"], int) and taken["createdAt"] > 0

    diff = host.request("checkpoint/diff", {"directory": str(project), "hash": taken["hash"]})
    assert "-original" in diff["diff"] and "+changed by agent" in diff["diff"]
    assert "notes.txt" in diff["stat"]

    restored = host.request(
        "checkpoint/restore", {"directory": str(project), "hash": taken["hash"]}
    )
    assert restored == {
        "restoredTo": taken["hash"][:8],
        "reason": "before write_file",
        "directory": str(project.resolve()),
        "path": None,
    }
    assert (project / "notes.txt").read_text() == "original\n"
    # hermes snapshotted the agent's version first: the restore itself can be undone.
    newest = host.request("checkpoint/list", {"directory": str(project)})["checkpoints"][0]
    assert newest["reason"].startswith("pre-rollback snapshot")
    host.request(
        "checkpoint/restore",
        {"directory": str(project), "hash": newest["hash"], "path": "notes.txt"},
    )
    assert (project / "notes.txt").read_text() == "changed by agent\n"


def test_bad_directories_paths_and_hashes_are_invalid_params_naming_the_field(
    host: HostClient, project: Path
) -> None:
    cases = [
        ("checkpoint/list", {"directory": "project"}, "params.directory"),
        ("checkpoint/diff", {"directory": str(project), "hash": "--patch"}, "params.hash"),
        ("checkpoint/diff", {"directory": str(project), "hash": "abcdef12"}, "params.hash"),
        (
            "checkpoint/restore",
            {"directory": str(project), "hash": "abcdef12", "path": "../outside.txt"},
            "params.path",
        ),
        (
            "checkpoint/restore",
            {"directory": str(project), "hash": "abcdef12", "path": "/etc/passwd"},
            "params.path",
        ),
    ]
    for method, params, field in cases:
        with pytest.raises(RpcError) as err:
            host.request(method, params)
        assert err.value.kind is ErrorType.INVALID_PARAMS, (method, params)
        assert err.value.data["field"] == field, (method, params)
    assert (project / "notes.txt").read_text() == "original\n"


def test_a_profile_without_checkpoints_takes_none(
    host: HostClient, llm: ScriptedLLM, project: Path
) -> None:
    agent_writes(host, llm, project, profile="play")
    listed = host.request("checkpoint/list", {"directory": str(project), "profile": "play"})
    assert (listed["enabled"], listed["checkpoints"]) == (False, [])


def test_a_relative_path_the_agent_writes_checkpoints_the_sessions_project(
    host: HostClient, llm: ScriptedLLM, home: Path, project: Path
) -> None:
    # hermes resolves the path for its checkpoint against the process's directory:
    # in a worker, the profile's home, where no snapshot of the project is taken.
    enable_checkpoints(home / "config.yaml")
    llm.enqueue(
        Reply.tool_call("write_file", {"path": "notes.txt", "content": "changed by agent\n"}),
        Reply.text(["done"]),
    )
    run = host.request("run/start", {"message": "edit", "workspace": str(project)})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert (project / "notes.txt").read_text() == "changed by agent\n"

    [taken] = host.request("checkpoint/list", {"directory": str(project)})["checkpoints"]
    assert taken["reason"] == "before write_file"
    host.request("checkpoint/restore", {"directory": str(project), "hash": taken["hash"]})
    assert (project / "notes.txt").read_text() == "original\n"


def test_a_destructive_command_checkpoints_the_directory_it_runs_in(
    host: HostClient, llm: ScriptedLLM, home: Path, project: Path
) -> None:
    enable_checkpoints(home / "config.yaml")
    (project / "sub").mkdir()
    (project / "sub" / "keep.txt").write_text("kept\n")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "rm notes.txt"}),
        Reply.tool_call("terminal", {"command": "cd sub"}),
        Reply.tool_call("terminal", {"command": "rm keep.txt"}),
        Reply.text(["done"]),
    )
    run = host.request("run/start", {"message": "clean up", "workspace": str(project)})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert not (project / "notes.txt").exists()
    assert not (project / "sub" / "keep.txt").exists()

    [taken] = host.request("checkpoint/list", {"directory": str(project)})["checkpoints"]
    assert taken["reason"] == "before terminal: rm notes.txt"
    host.request("checkpoint/restore", {"directory": str(project), "hash": taken["hash"]})
    assert (project / "notes.txt").read_text() == "original\n"
    # After its cd, the command ran in sub: that is what was snapshotted before it.
    sub = str(project / "sub")
    [in_sub] = host.request("checkpoint/list", {"directory": sub})["checkpoints"]
    assert in_sub["reason"] == "before terminal: rm keep.txt"
    host.request("checkpoint/restore", {"directory": sub, "hash": in_sub["hash"]})
    assert (project / "sub" / "keep.txt").read_text() == "kept\n"
