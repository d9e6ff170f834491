"""An edit held for review whose file changes before the host answers (an
editor saves it): what hermes writes is what the host approved, else the host
is asked again, through the real binary and real hermes-agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import ScriptedLLM
from hermes_stdio.wire import Notification

from .conftest import resolutions, tool_result
from .test_approvals import respond
from .test_edit_review import asks, edit_runs, start

REPLACE = {"mode": "replace", "path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}


def asked_again(host: HostClient, run_id: str) -> Notification:
    """The run's next approval/requested."""
    return host.wait_for(
        lambda n: n.method == "approval/requested" and n.params["runId"] == run_id, timeout=60
    )


def saved_during_review(
    host: HostClient, llm: ScriptedLLM, ws: Path, before: str, meanwhile: str
) -> tuple[dict[str, Any], Notification]:
    """A reviewing run patching app.py, which holds ``before``; the user's editor
    saves it as ``meanwhile``, then the host answers ``once``. The run and its
    first request."""
    (ws / "app.py").write_text(before)
    edit_runs(llm, ("patch", REPLACE))
    run, first = start(host, ws)
    (ws / "app.py").write_text(meanwhile)
    respond(host, run, first, "once")
    return run, first


def test_a_file_changed_during_review_so_the_diff_differs_is_asked_about_again(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    run, first = saved_during_review(host, llm, ws, "x = 1\ny = 1\n", "x = 1\ny = 5\n")
    second = asked_again(host, run["runId"])
    assert second.params["approvalId"] != first.params["approvalId"]
    assert first.params["description"] == "change app.py"
    assert (
        second.params["description"] == "change app.py (asked again: a file changed during review)"
    )
    assert [e["diff"] for e in second.params["edits"]] == [
        "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 5\n"
    ]
    assert (ws / "app.py").read_text() == "x = 1\ny = 5\n"  # nothing written yet
    respond(host, run, second, "once")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert (ws / "app.py").read_text() == "x = 2\ny = 5\n"
    assert [r["outcome"] for r in resolutions(host, run["runId"], "approval")] == [
        "approved",
        "approved",
    ]
    approvals = [n.method for n in host.run_notifications(run["runId"]) if "approval" in n.method]
    assert approvals == ["approval/requested", "approval/resolved"] * 2


def test_a_change_elsewhere_in_the_file_leaves_the_diff_as_approved_and_is_not_asked_again(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    lines = "".join(f"line {i}\n" for i in range(9))
    run, _ = saved_during_review(
        host, llm, ws, f"x = 1\n{lines}line 9\n", f"x = 1\n{lines}edited\n"
    )
    host.wait_run_completed(run["runId"])
    assert len(asks(host, run["runId"])) == 1
    assert (ws / "app.py").read_text() == f"x = 2\n{lines}edited\n"


def test_an_edit_that_no_longer_applies_after_the_file_changed_is_blocked_with_the_tools_error(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    run, _ = saved_during_review(host, llm, ws, "x = 1\n", "z = 0\n")
    host.wait_run_completed(run["runId"])
    assert len(asks(host, run["runId"])) == 1
    assert (ws / "app.py").read_text() == "z = 0\n"
    result = tool_result(host, run["runId"])
    assert "changed during review" in result and "x = 1" not in (ws / "app.py").read_text()


def test_a_file_that_keeps_changing_is_asked_about_three_times_then_blocked(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "notes.md").write_text("v0\n")
    edit_runs(llm, ("write_file", {"path": "notes.md", "content": "agent\n"}))
    run, ask = start(host, ws)
    for version in range(1, 4):
        (ws / "notes.md").write_text(f"v{version}\n")
        assert ask.params["edits"][0]["diff"].startswith("--- a/notes.md")
        respond(host, run, ask, "once")
        if version < 3:
            ask = asked_again(host, run["runId"])
            assert f"-v{version}\n" in ask.params["edits"][0]["diff"]
    host.wait_run_completed(run["runId"])
    assert len(asks(host, run["runId"])) == 3
    assert (ws / "notes.md").read_text() == "v3\n"
    result = tool_result(host, run["runId"])
    assert "BLOCKED" in result and "kept changing" in result
