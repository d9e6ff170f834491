"""File edits through the real binary: a file-edit tool's ``tool.completed`` names
each file it changed, with the change as a unified diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import run_to_end


def completed_calls(notes: list[Any]) -> list[dict[str, Any]]:
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    return [e for e in events if e["type"] == "tool.completed"]


def test_write_file_and_patch_report_each_file_they_changed_with_its_diff(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "old.txt").write_text("bye\n")
    v4a = (
        "*** Begin Patch\n*** Add File: made.txt\n+made\n*** Delete File: old.txt\n*** End Patch\n"
    )
    llm.enqueue(
        Reply.tool_call("write_file", {"path": "notes.md", "content": "hello\nworld\n"}),
        Reply.tool_call(
            "patch",
            {"mode": "replace", "path": "notes.md", "old_string": "world", "new_string": "there"},
        ),
        Reply.tool_call("patch", {"mode": "patch", "patch": v4a}),
        Reply.tool_call("terminal", {"command": "echo x > by-command.txt"}),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "edit", "workspace": str(ws)})
    assert notes[-1].params["status"] == "complete"
    assert (ws / "notes.md").read_text() == "hello\nthere\n" and (ws / "by-command.txt").exists()
    written, patched, v4a_done, command = completed_calls(notes)
    assert written["edits"] == [
        {
            "path": str(ws / "notes.md"),
            "kind": "added",
            "diff": "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
        }
    ]
    assert patched["edits"] == [
        {
            "path": str(ws / "notes.md"),
            "kind": "updated",
            "diff": "--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n",
        }
    ]
    assert [(e["path"], e["kind"]) for e in v4a_done["edits"]] == [
        (str(ws / "made.txt"), "added"),
        (str(ws / "old.txt"), "deleted"),
    ]
    assert v4a_done["edits"][1]["diff"] == "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert command["name"] == "terminal" and command["edits"] == []  # not a file-edit tool


def test_a_file_outside_the_workspace_is_named_absolutely_and_a_failed_patch_has_no_edits(
    host: HostClient, llm: ScriptedLLM, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    (ws / "keep.txt").write_text("kept\n")
    llm.enqueue(
        Reply.tool_call("write_file", {"path": str(outside), "content": "out\n"}),
        Reply.tool_call(
            "patch",
            {"mode": "replace", "path": "keep.txt", "old_string": "absent", "new_string": "x"},
        ),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "edit", "workspace": str(ws)})
    written, failed = completed_calls(notes)
    shown = str(outside).lstrip("/")  # as git names an absolute path
    assert written["edits"] == [
        {
            "path": str(outside),
            "kind": "added",
            "diff": f"--- /dev/null\n+++ b/{shown}\n@@ -0,0 +1 @@\n+out\n",
        }
    ]
    assert "error" in failed["result"] and failed["edits"] == []
    assert (ws / "keep.txt").read_text() == "kept\n"


def test_skill_manage_reports_the_skill_files_it_wrote_in_the_profiles_home(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    skill = "---\nname: tidy\ndescription: Tidy things.\n---\n\nTidy up.\n"
    llm.enqueue(
        Reply.tool_call("skill_manage", {"action": "create", "name": "tidy", "content": skill}),
        Reply.tool_call(
            "skill_manage",
            {"action": "patch", "name": "tidy", "old_string": "Tidy up.", "new_string": "Tidy."},
        ),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "make a skill"})
    created, patched = completed_calls(notes)
    [made] = created["edits"]
    assert made["kind"] == "added" and made["path"].startswith(str(home))
    assert made["path"].endswith("/tidy/SKILL.md") and "+Tidy up.\n" in made["diff"]
    [changed] = patched["edits"]
    assert changed["path"] == made["path"] and changed["kind"] == "updated"
    assert "-Tidy up.\n+Tidy.\n" in changed["diff"]


def test_parallel_edit_calls_each_report_only_their_own_file(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    llm.enqueue(
        Reply.tool_calls(
            [
                ("write_file", {"path": "one.txt", "content": "1\n"}),
                ("write_file", {"path": "two.txt", "content": "2\n"}),
            ]
        ),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "write both", "workspace": str(ws)})
    done = {c["toolCallId"]: c for c in completed_calls(notes)}
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    started = [e for e in events if e["type"] == "tool.started"]
    assert len(started) == 2 == len(done)
    for call in started:
        [edit] = done[call["toolCallId"]]["edits"]
        assert edit["path"] == str(ws / call["args"]["path"]) and edit["kind"] == "added"


def test_an_env_file_the_agent_rewrites_is_reported_without_its_contents(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / ".env").write_text("API_TOKEN=old-token-value\n")
    llm.enqueue(
        Reply.tool_call("write_file", {"path": ".env", "content": "API_TOKEN=new-token-value\n"}),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "rotate it", "workspace": str(ws)})
    [written] = completed_calls(notes)
    assert (ws / ".env").read_text() == "API_TOKEN=new-token-value\n"
    assert written["edits"] == [{"path": str(ws / ".env"), "kind": "updated", "diff": None}]
    wire = "".join(repr(message) for _, message in host.received)
    assert "old-token-value" not in wire  # hermes' agent could not read it: nor does the host


def test_a_skill_name_no_file_can_have_still_gives_the_calls_start_and_end(
    host: HostClient, llm: ScriptedLLM
) -> None:
    bad = {"action": "create", "name": "bad\x00name", "content": "x"}  # NUL: no such path
    llm.enqueue(Reply.tool_call("skill_manage", bad), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "make a skill"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    [started] = [e for e in events if e["type"] == "tool.started"]
    [completed] = [e for e in events if e["type"] == "tool.completed"]
    assert started["name"] == completed["name"] == "skill_manage"
    assert completed["edits"] == [] and notes[-1].params["status"] == "complete"
