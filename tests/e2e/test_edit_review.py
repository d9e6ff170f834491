"""Edits held for review through the real binary and real hermes-agent: with
run/start's reviewEdits, hermes' file-edit tools write nothing until the host
approves the diff it was shown in approval/requested."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import Notification

from .conftest import (
    StartHost,
    asked,
    received,
    resolutions,
    subagent_ended,
    tool_result,
    within_the_turn,
)
from .test_approvals import respond


def edit_runs(llm: ScriptedLLM, *calls: tuple[str, dict[str, Any]]) -> None:
    llm.enqueue(*(Reply.tool_call(name, args) for name, args in calls), Reply.text(["done"]))


def start(host: HostClient, ws: Path, **params: Any) -> tuple[dict[str, Any], Notification]:
    """Start a reviewing run; the run and its first approval/requested."""
    run = host.request(
        "run/start", {"message": "edit", "workspace": str(ws), "reviewEdits": True, **params}
    )
    return run, asked(host, run["runId"], "approval")


def written_after(
    host: HostClient, llm: ScriptedLLM, ws: Path, name: str, decision: str, **params: Any
) -> dict[str, Any]:
    """A reviewing run that writes ``name``, answered ``decision``; the run, ended."""
    edit_runs(llm, ("write_file", {"path": name, "content": f"{name}\n"}))
    run, ask = start(host, ws, **params)
    respond(host, run, ask, decision)
    host.wait_run_completed(run["runId"])
    return run


def asks(host: HostClient, run_id: str) -> list[Notification]:
    return [n for n in host.run_notifications(run_id) if n.method == "approval/requested"]


def test_an_edit_shows_its_diff_and_writes_nothing_until_the_host_approves_it(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    edit_runs(llm, ("write_file", {"path": "notes.md", "content": "hello\n"}))
    run, ask = start(host, ws)
    assert ask.params == {
        "runId": run["runId"],
        "sessionId": run["sessionId"],
        "seq": ask.params["seq"],
        "approvalId": ask.params["approvalId"],
        "command": "write_file notes.md",
        "description": "create notes.md",
        "patternKeys": ["file edit"],
        "allowPermanent": False,
        "edits": [
            {
                "path": str(ws / "notes.md"),
                "kind": "added",
                "diff": "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+hello\n",
            }
        ],
        "toolCall": None,
    }
    assert not (ws / "notes.md").exists()
    status = host.request("session/status", {"sessionId": run["sessionId"]})
    assert status["reviewEdits"] is True
    assert respond(host, run, ask, "once") == {"outcome": "approved"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert (ws / "notes.md").read_text() == "hello\n"
    assert resolutions(host, run["runId"], "approval") == [
        {
            "runId": run["runId"],
            "sessionId": run["sessionId"],
            "seq": resolutions(host, run["runId"], "approval")[0]["seq"],
            "approvalId": ask.params["approvalId"],
            "outcome": "approved",
            "decision": "once",
        }
    ]


def test_a_denied_edit_leaves_the_file_and_the_agent_hears_the_reason(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "app.py").write_text("x = 1\n")
    replace = {"mode": "replace", "path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    edit_runs(llm, ("patch", replace))
    run, ask = start(host, ws)
    assert ask.params["command"] == "patch app.py"
    assert ask.params["edits"][0]["diff"] == (
        "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )
    assert respond(host, run, ask, "deny", reason="keep x") == {"outcome": "denied"}
    host.wait_run_completed(run["runId"])
    assert (ws / "app.py").read_text() == "x = 1\n"
    result = tool_result(host, run["runId"])
    assert "BLOCKED" in result and "keep x" in result and "not modified" in result


def test_a_v4a_patch_is_one_request_naming_each_file_it_would_change(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "old.txt").write_text("bye\n")
    v4a = (
        "*** Begin Patch\n*** Add File: made.txt\n+made\n*** Delete File: old.txt\n*** End Patch\n"
    )
    edit_runs(llm, ("patch", {"mode": "patch", "patch": v4a}))
    run, ask = start(host, ws)
    assert ask.params["description"] == "create made.txt; delete old.txt"
    assert [(e["path"], e["kind"]) for e in ask.params["edits"]] == [
        (str(ws / "made.txt"), "added"),
        (str(ws / "old.txt"), "deleted"),
    ]
    assert ask.params["edits"][1]["diff"] == "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert (ws / "old.txt").exists() and not (ws / "made.txt").exists()
    respond(host, run, ask, "once")
    host.wait_run_completed(run["runId"])
    assert (ws / "made.txt").read_text() == "made" and not (ws / "old.txt").exists()


def test_parallel_edits_are_each_asked_about_and_answered_on_their_own(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    writes = [("write_file", {"path": f"{n}.txt", "content": f"{n}\n"}) for n in ("a", "b")]
    llm.enqueue(Reply.tool_calls(writes), Reply.text(["done"]))
    run = host.request("run/start", {"message": "edit", "workspace": str(ws), "reviewEdits": True})
    for _ in writes:
        ask = asked(host, run["runId"], "approval")
        [edit] = ask.params["edits"]
        respond(host, run, ask, "once" if edit["path"].endswith("a.txt") else "deny")
    host.wait_run_completed(run["runId"])
    assert (ws / "a.txt").read_text() == "a\n" and not (ws / "b.txt").exists()
    assert sorted(r["outcome"] for r in resolutions(host, run["runId"], "approval")) == [
        "approved",
        "denied",
    ]


def test_a_scripts_file_edit_through_execute_code_is_held_for_review_too(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    code = "from hermes_tools import write_file\nprint(write_file('made.txt', 'hi\\n'))\n"
    llm.enqueue(Reply.tool_call("execute_code", {"code": code}), Reply.text(["done"]))
    run, code_ask = start(host, ws)
    assert code_ask.params["edits"] == []  # the code itself, asked about as a command
    respond(host, run, code_ask, "once")
    edit_ask = asked(host, run["runId"], "approval")
    assert edit_ask.params["command"] == "write_file made.txt"
    assert [e["path"] for e in edit_ask.params["edits"]] == [str(ws / "made.txt")]
    respond(host, run, edit_ask, "deny")
    host.wait_run_completed(run["runId"])
    assert not (ws / "made.txt").exists()
    assert "BLOCKED" in tool_result(host, run["runId"])


def test_a_patch_that_cannot_apply_fails_without_asking(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "keep.txt").write_text("kept\n")
    replace = {"mode": "replace", "path": "keep.txt", "old_string": "absent", "new_string": "x"}
    edit_runs(llm, ("patch", replace))
    run = host.request("run/start", {"message": "edit", "workspace": str(ws), "reviewEdits": True})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert asks(host, run["runId"]) == []
    assert "error" in tool_result(host, run["runId"])
    assert (ws / "keep.txt").read_text() == "kept\n"


def test_a_session_answer_lets_later_edits_through_except_to_a_guarded_file(
    host: HostClient, llm: ScriptedLLM, ws: Path, tmp_path: Path
) -> None:
    first = written_after(host, llm, ws, "a.txt", "session")

    (ws / ".git").mkdir()
    edit_runs(
        llm,
        ("write_file", {"path": "b.txt", "content": "b\n"}),
        ("write_file", {"path": ".git/config", "content": "[core]\n"}),
    )
    second, guarded = start(host, ws, sessionId=first["sessionId"])
    assert (ws / "b.txt").read_text() == "b\n"  # written unasked
    assert guarded.params["patternKeys"] == [f"file edit: {ws / '.git' / 'config'}"]
    assert not (ws / ".git" / "config").exists()
    respond(host, second, guarded, "deny")
    host.wait_run_completed(second["runId"])
    assert len(asks(host, second["runId"])) == 1
    assert not (ws / ".git" / "config").exists()

    outside = tmp_path / "outside.txt"  # not in the session's workspace
    edit_runs(llm, ("write_file", {"path": str(outside), "content": "o\n"}))
    third, beyond = start(host, ws, sessionId=first["sessionId"])
    assert beyond.params["patternKeys"] == [f"file edit: {outside}"]
    respond(host, third, beyond, "session")  # covers that file from now on
    host.wait_run_completed(third["runId"])
    edit_runs(llm, ("write_file", {"path": str(outside), "content": "again\n"}))
    fourth = host.request("run/start", {"message": "edit", "sessionId": first["sessionId"]})
    host.wait_run_completed(fourth["runId"])
    assert asks(host, fourth["runId"]) == [] and outside.read_text() == "again\n"

    written_after(host, llm, ws, "c.txt", "deny")  # another session is asked again
    assert not (ws / "c.txt").exists()


def test_edits_are_written_unasked_once_review_is_off_or_the_session_approves_everything(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    sid = written_after(host, llm, ws, "a.txt", "once")["sessionId"]

    edit_runs(llm, ("write_file", {"path": "b.txt", "content": "b\n"}))
    off = host.request("run/start", {"message": "more", "sessionId": sid, "reviewEdits": False})
    host.wait_run_completed(off["runId"])
    assert asks(host, off["runId"]) == [] and (ws / "b.txt").exists()

    edit_runs(llm, ("write_file", {"path": "c.txt", "content": "c\n"}))
    params = {"message": "more", "sessionId": sid, "reviewEdits": True, "autoApprove": True}
    yolo = host.request("run/start", params)
    host.wait_run_completed(yolo["runId"])
    assert asks(host, yolo["runId"]) == [] and (ws / "c.txt").exists()


def test_interrupting_a_run_whose_edit_waits_cancels_the_request_and_writes_nothing(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    edit_runs(llm, ("write_file", {"path": "a.txt", "content": "a\n"}))
    run, ask = start(host, ws)
    host.request("run/interrupt", {"runId": run["runId"]})
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    [resolved] = resolutions(host, run["runId"], "approval")
    assert resolved["approvalId"] == ask.params["approvalId"]
    assert resolved["outcome"] == "cancelled"
    assert not (ws / "a.txt").exists()


def test_an_unanswered_edit_times_out_unwritten(
    start_host: StartHost, home: Path, llm: ScriptedLLM, ws: Path
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["approvals"] = {"mode": "manual", "timeout": 1}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    edit_runs(llm, ("write_file", {"path": "a.txt", "content": "a\n"}))
    run, _ask = start(host, ws)
    host.wait_run_completed(run["runId"])
    [resolved] = resolutions(host, run["runId"], "approval")
    assert resolved["outcome"] == "timed_out" and resolved["decision"] is None
    assert "BLOCKED" in tool_result(host, run["runId"])
    assert not (ws / "a.txt").exists()


def test_a_background_subagents_edit_is_blocked_and_asks_nobody(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    target = ws / "sub.txt"
    write = Reply.tool_call("write_file", {"path": str(target), "content": "sub\n"})
    llm.enqueue_for("write it", write, Reply.text(["done"]))
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "write it"}), Reply.text(["dispatched"]))
    params = {"message": "delegate", "workspace": str(ws), "reviewEdits": True}
    run = host.request("run/start", params)
    host.wait_run_completed(run["runId"])
    ended = subagent_ended(host)
    assert ended.params["sessionId"] == run["sessionId"]
    assert received(host, "approval/requested") == []
    assert not target.exists()


@pytest.mark.parametrize("worker", ["spawned", "forked"])
def test_a_subagent_within_the_turn_has_its_edit_reviewed_in_its_parents_run(
    start_host: StartHost, llm: ScriptedLLM, home: Path, ws: Path, worker: str
) -> None:
    host, held = within_the_turn(start_host, llm, home, worker)
    target = ws / "sub.txt"
    write = Reply.tool_call("write_file", {"path": str(target), "content": "sub\n"})
    llm.enqueue_for("write it", write, Reply.text(["done"]))
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "write it"}), Reply.text(["done"]))
    run = host.request(
        "run/start",
        {"message": "delegate", "sessionId": "reviewing", "reviewEdits": True},
    )
    ask = asked(host, run["runId"], "approval")
    assert ask.params["edits"][0]["path"] == str(target) and not target.exists()
    respond(host, run, ask, "once")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert target.read_text() == "sub\n"
    held.release.set()


def test_a_subagents_relative_path_is_shown_as_it_resolves_in_the_subagents_directory(
    start_host: StartHost, llm: ScriptedLLM, home: Path, ws: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)
    (ws / "sub").mkdir()
    llm.enqueue_for(
        "write it",
        Reply.tool_call("terminal", {"command": "cd sub"}),  # the subagent's own directory
        Reply.tool_call("write_file", {"path": "rel.txt", "content": "sub\n"}),
        Reply.text(["done"]),
    )
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "write it"}), Reply.text(["done"]))
    params = {"message": "delegate", "workspace": str(ws), "reviewEdits": True}
    run = host.request("run/start", params)
    ask = asked(host, run["runId"], "approval")
    assert [e["path"] for e in ask.params["edits"]] == [str(ws / "sub" / "rel.txt")]
    respond(host, run, ask, "once")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert (ws / "sub" / "rel.txt").read_text() == "sub\n" and not (ws / "rel.txt").exists()
    held.release.set()


def test_a_cron_job_run_within_the_turn_has_its_edit_reviewed_in_its_own_directory(
    host: HostClient, llm: ScriptedLLM, ws: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    job = host.request(
        "cron/create", {"schedule": "every 1h", "prompt": "write it", "workdir": str(project)}
    )["job"]
    llm.enqueue(
        Reply.tool_call("cronjob", {"action": "run", "job_id": job["jobId"]}),
        Reply.tool_call("write_file", {"path": "rel.txt", "content": "job\n"}),  # the job's agent
        Reply.text(["job done"]),
        Reply.text(["ran it"]),
    )
    run, ask = start(host, ws)
    assert [e["path"] for e in ask.params["edits"]] == [str(project / "rel.txt")]
    assert not (project / "rel.txt").exists()
    respond(host, run, ask, "deny")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert not (project / "rel.txt").exists() and not (ws / "rel.txt").exists()


def test_a_job_the_host_runs_with_review_has_its_edit_asked_about_in_the_jobs_run(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    made = {"schedule": "every 1h", "prompt": "write it", "workdir": str(project)}
    job = host.request("cron/create", made)["job"]["jobId"]
    write = Reply.tool_call("write_file", {"path": "rel.txt", "content": "job\n"})
    llm.enqueue(write, Reply.text(["job done"]))
    run = host.request("cron/run", {"jobId": job, "reviewEdits": True})
    ask = asked(host, run["runId"], "approval")
    # The job's workdir is its run's workspace: the diff is named from there.
    assert ask.params["edits"] == [
        {
            "path": str(project / "rel.txt"),
            "kind": "added",
            "diff": "--- /dev/null\n+++ b/rel.txt\n@@ -0,0 +1 @@\n+job\n",
        }
    ]
    assert ask.params["patternKeys"] == ["file edit"]
    assert not (project / "rel.txt").exists()
    respond(host, run, ask, "once")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert (project / "rel.txt").read_text() == "job\n"

    again = Reply.tool_call("write_file", {"path": "rel.txt", "content": "again\n"})
    llm.enqueue(again, Reply.text(["job done"]))  # without reviewEdits, as before
    unreviewed = host.request("cron/run", {"jobId": job})
    host.wait_run_completed(unreviewed["runId"])
    assert asks(host, unreviewed["runId"]) == []
    assert (project / "rel.txt").read_text() == "again\n"


def test_review_switched_during_a_run_holds_from_its_next_edit_and_creates_a_new_session(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    edit_runs(
        llm,
        ("write_file", {"path": "a.txt", "content": "a\n"}),
        ("write_file", {"path": "b.txt", "content": "b\n"}),
    )
    run, ask = start(host, ws)
    switched = host.request(
        "session/reviewEdits", {"sessionId": run["sessionId"], "enabled": False}
    )
    assert switched == {"sessionId": run["sessionId"], "reviewEdits": False}
    assert not (ws / "a.txt").exists()  # the edit waiting stays pending until answered
    respond(host, run, ask, "once")
    host.wait_run_completed(run["runId"])
    assert len(asks(host, run["runId"])) == 1
    assert (ws / "a.txt").exists() and (ws / "b.txt").exists()

    on = host.request("session/reviewEdits", {"sessionId": "fresh", "enabled": True})
    assert on == {"sessionId": "fresh", "reviewEdits": True}
    assert host.request("session/status", {"sessionId": "fresh"})["reviewEdits"] is True
    edit_runs(llm, ("write_file", {"path": "c.txt", "content": "c\n"}))
    later = host.request(
        "run/start", {"message": "edit", "sessionId": "fresh", "workspace": str(ws)}
    )
    respond(host, later, asked(host, later["runId"], "approval"), "deny")
    host.wait_run_completed(later["runId"])
    assert not (ws / "c.txt").exists()


def test_a_profile_whose_approvals_are_off_still_has_its_edits_reviewed(
    start_host: StartHost, home: Path, llm: ScriptedLLM, ws: Path
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["approvals"] = {"mode": "off"}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    written_after(host, llm, ws, "a.txt", "deny")
    assert not (ws / "a.txt").exists()
