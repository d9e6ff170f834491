"""A profile's settings through the real binary and real hermes-agent: a host reads
a profile's config.yaml with hermes' defaults and managed settings, changes it
under hermes' rules keeping the file's comments, is refused what hermes' install or
its managed scope pins and what changed meanwhile, and is told of every change to
the file, whoever makes it (config/changed)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, managed_host, pushed_so_far, refused, tool_result


def version_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def with_comment(path: Path, comment: str) -> None:
    path.write_text(f"# {comment}\n" + path.read_text())


def test_a_host_reads_and_changes_a_profiles_settings_keeping_the_files_comments(
    host: HostClient, home: Path
) -> None:
    config = home / "profiles" / "work" / "config.yaml"
    with_comment(config, "the work profile: keep this note")
    config.chmod(0o640)
    read = host.request("config/read", {"profile": "work"})
    assert read["path"] == str(config)
    assert read["version"] == version_of(config)
    assert read["config"] == yaml.safe_load(config.read_text())
    assert isinstance(read["defaults"]["agent"]["max_turns"], int)  # hermes' own
    assert (read["managed"], read["readOnly"]) == ({}, None)

    edits = [
        {"keyPath": ["agent", "max_turns"], "value": 7},
        {"keyPath": ["display", "personality"], "value": "yes"},  # a YAML 1.1 boolean unquoted
        {"keyPath": ["model", "context_length"], "value": None},  # removed
    ]
    wrote = host.request(
        "config/write", {"profile": "work", "edits": edits, "expectedVersion": read["version"]}
    )
    text = config.read_text()
    assert text.startswith("# the work profile: keep this note\n")
    now = yaml.safe_load(text)
    assert now["agent"]["max_turns"] == 7
    assert now["display"]["personality"] == "yes"
    assert "context_length" not in now["model"]
    assert now["model"] == {
        k: v for k, v in read["config"]["model"].items() if k != "context_length"
    }
    assert wrote == {"version": version_of(config), "config": now, "warnings": []}
    assert host.request("config/read", {"profile": "work"})["version"] == wrote["version"]
    assert config.stat().st_mode & 0o777 == 0o640  # the file's own mode is kept


def test_a_changed_model_is_used_by_sessions_built_afterwards(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["one"]), Reply.text(["two"]), Reply.text(["three"]))
    first = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(first["runId"])
    host.request(
        "config/write", {"edits": [{"keyPath": ["model", "default"], "value": "other-model"}]}
    )
    again = host.request("run/start", {"message": "again", "sessionId": first["sessionId"]})
    host.wait_run_completed(again["runId"])
    fresh = host.request("run/start", {"message": "new"})
    host.wait_run_completed(fresh["runId"])
    # A session's agent keeps what it was built with; a new one reads the new file.
    assert [r["model"] for r in llm.requests] == [llm.model, llm.model, "other-model"]


def test_a_write_against_an_old_version_is_config_conflict_and_writes_nothing(
    host: HostClient, home: Path
) -> None:
    config = home / "config.yaml"
    old = host.request("config/read", {})["version"]
    with_comment(config, "the user's editor saved this meanwhile")
    before = config.read_bytes()
    err = refused(
        host,
        "config/write",
        {"edits": [{"keyPath": ["agent", "max_turns"], "value": 3}], "expectedVersion": old},
    )
    assert err.kind is ErrorType.CONFIG_CONFLICT
    assert err.data["version"] == version_of(config)
    assert config.read_bytes() == before


def test_what_the_managed_scope_pins_or_a_locked_install_is_config_read_only(
    start_host: StartHost, home: Path, tmp_path: Path
) -> None:
    host = managed_host(start_host, tmp_path / "managed", "config.yaml", "agent:\n  max_turns: 5\n")
    assert host.request("config/read", {})["managed"] == {"agent": {"max_turns": 5}}
    before = (home / "config.yaml").read_bytes()
    for key_path in (["agent", "max_turns"], ["agent"], ["agent", "max_turns", "x"]):
        err = refused(host, "config/write", {"edits": [{"keyPath": key_path, "value": 9}]})
        assert err.kind is ErrorType.CONFIG_READ_ONLY
        assert err.data["keyPath"] == key_path
    assert (home / "config.yaml").read_bytes() == before
    host.request("config/write", {"edits": [{"keyPath": ["agent", "verbose"], "value": True}]})
    # hermes' package-manager lock: its marker file in the profile's home.
    (home / "profiles" / "play" / ".managed").touch()
    assert host.request("config/read", {"profile": "play"})["readOnly"] == "NixOS"
    err = refused(
        host,
        "config/write",
        {"profile": "play", "edits": [{"keyPath": ["agent", "verbose"], "value": True}]},
    )
    assert err.kind is ErrorType.CONFIG_READ_ONLY
    assert err.data["keyPath"] is None


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({"keyPath": ["model", "default", "x"], "value": 1}, "params.edits[0]"),
        ({"keyPath": ["OPENAI_API_KEY"], "value": "sk-x"}, "params.edits[0]"),
        ({"keyPath": [], "value": 1}, "params.edits[0]"),
        ({"keyPath": ["agent", ""], "value": 1}, "params.edits[0]"),
        ({"keyPath": "agent.max_turns", "value": 1}, "params.edits[0].keyPath"),
    ],
    ids=["below-a-value", "a-secret", "no-key", "empty-key", "dotted-string"],
)
def test_a_wrong_edit_is_invalid_params_and_writes_nothing(
    host: HostClient, home: Path, edit: dict[str, Any], field: str
) -> None:
    before = (home / "config.yaml").read_bytes()
    err = refused(host, "config/write", {"edits": [edit]})
    assert err.kind is ErrorType.INVALID_PARAMS
    assert err.data["field"] == field
    assert (home / "config.yaml").read_bytes() == before
    err = refused(host, "config/write", {"edits": []})
    assert err.data["field"] == "params.edits"


def test_a_key_hermes_does_not_know_is_written_with_its_suggestion(host: HostClient) -> None:
    wrote = host.request(
        "config/write", {"edits": [{"keyPath": ["agent", "max_turn"], "value": 3}]}
    )
    assert wrote["config"]["agent"]["max_turn"] == 3
    [warning] = wrote["warnings"]
    assert "agent.max_turn" in warning and "agent.max_turns" in warning


def test_a_config_hermes_cannot_use_is_profile_unreadable_and_is_not_overwritten(
    host: HostClient, home: Path
) -> None:
    host.request("config/read", {"profile": "play"})  # its worker runs
    config = home / "profiles" / "play" / "config.yaml"
    config.write_text("model: [unclosed\n")
    for method, params in (
        ("config/read", {"profile": "play"}),
        ("config/write", {"profile": "play", "edits": [{"keyPath": ["a"], "value": 1}]}),
    ):
        err = refused(host, method, params)
        assert err.kind is ErrorType.PROFILE_UNREADABLE
        assert err.data["file"] == "config.yaml"
    assert config.read_text() == "model: [unclosed\n"


def test_a_symlinked_config_stays_a_symlink_to_the_changed_file(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    config = home / "profiles" / "play" / "config.yaml"
    dotfiles = tmp_path / "dotfiles-config.yaml"
    dotfiles.write_bytes(config.read_bytes())
    config.unlink()
    config.symlink_to(dotfiles)
    host.request(
        "config/write",
        {"profile": "play", "edits": [{"keyPath": ["agent", "max_turns"], "value": 4}]},
    )
    assert config.is_symlink()
    assert yaml.safe_load(dotfiles.read_text())["agent"]["max_turns"] == 4


def test_every_change_to_a_profiles_config_is_pushed_whoever_makes_it(
    host: HostClient, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)

    def pushed(*changes: tuple[str, str | None]) -> None:
        expected = [{"profile": p, "version": v} for p, v in changes]
        pushed_so_far(host, "config/changed", expected)

    wrote = host.request(
        "config/write",
        {"profile": "work", "edits": [{"keyPath": ["agent", "max_turns"], "value": 8}]},
    )
    pushed(("work", wrote["version"]))
    play = home / "profiles" / "play" / "config.yaml"
    with_comment(play, "edited by hand")  # the user's editor: no worker runs for play
    version_of_before = version_of(play)
    pushed(("work", wrote["version"]), ("play", version_of_before))
    play.unlink()
    pushed(("work", wrote["version"]), ("play", version_of_before), ("play", None))


def test_a_deny_rule_written_applies_at_once_to_a_session_already_running(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    llm.enqueue(
        Reply.text(["hello"]),
        Reply.tool_call("terminal", {"command": f"rm -rf {victim}"}),
        Reply.text(["could not"]),
    )
    first = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(first["runId"])
    host.request(
        "config/write", {"edits": [{"keyPath": ["approvals", "deny"], "value": ["rm -rf *"]}]}
    )
    run = host.request("run/start", {"message": "delete it", "sessionId": first["sessionId"]})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert "BLOCKED" in tool_result(host, run["runId"])
    assert not [n for n in host.run_notifications(run["runId"]) if n.method == "approval/requested"]
    assert victim.exists()
