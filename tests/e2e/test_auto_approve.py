"""run/start's autoApprove through the real binary and real hermes-agent: the host answers
ahead for one session, which then runs what would ask without asking, until it is
turned off or the session is loaded afresh; other sessions, hard refusals and the
other kinds of question are untouched."""

from __future__ import annotations

from pathlib import Path

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import (
    StartHost,
    background_calls,
    subagent_ended,
    subagent_runs,
    within_the_turn,
)
from .test_approvals import (
    dangerous,
    methods,
    requested,
    respond,
    set_approvals,
    start_shell,
)


def run(host: HostClient, session_id: str, **params: object) -> dict[str, str]:
    started = host.request("run/start", {"message": "go", "sessionId": session_id, **params})
    return dict(started)


def auto(host: HostClient) -> bool:
    return bool(host.request("session/status", {"sessionId": "auto"})["autoApprove"])


def test_an_auto_approving_session_runs_flagged_commands_unasked_until_turned_off(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    dangerous(llm, tmp_path / "v1")
    first = run(host, "auto", autoApprove=True)
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    assert not (tmp_path / "v1").exists()
    assert "approval/requested" not in methods(host, first["runId"])
    assert auto(host)

    # Another session is still asked.
    dangerous(llm, tmp_path / "v2")
    other = run(host, "other")
    respond(host, other, requested(host, other["runId"]), "deny")
    host.wait_run_completed(other["runId"])
    assert (tmp_path / "v2").exists()
    assert host.request("session/status", {"sessionId": "other"})["autoApprove"] is False

    # Kept for the session's later turns...
    dangerous(llm, tmp_path / "v3")
    later = run(host, "auto")
    host.wait_run_completed(later["runId"])
    assert not (tmp_path / "v3").exists()

    # ...until a run turns it off.
    dangerous(llm, tmp_path / "v4")
    off = run(host, "auto", autoApprove=False)
    respond(host, off, requested(host, off["runId"]), "deny")
    host.wait_run_completed(off["runId"])
    assert (tmp_path / "v4").exists()
    assert not auto(host)


def test_a_session_loaded_afresh_asks_again(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.enqueue(Reply.text(["hi"]))
    host.wait_run_completed(run(host, "auto", autoApprove=True)["runId"])
    assert host.request("session/destroy", {"sessionId": "auto"})["destroyed"] is True

    victim = tmp_path / "victim"
    dangerous(llm, victim)
    again = run(host, "auto")
    respond(host, again, requested(host, again["runId"]), "deny")
    host.wait_run_completed(again["runId"])
    assert victim.exists()
    assert not auto(host)


def test_the_profiles_deny_rules_still_refuse_an_auto_approving_session(
    start_host: StartHost, home: Path, llm: ScriptedLLM, tmp_path: Path
) -> None:
    set_approvals(home, mode="manual", deny=["rm -rf *kept*"])
    host = start_host()
    host.initialize()
    victim = tmp_path / "kept"
    dangerous(llm, victim)
    refused = run(host, "auto", autoApprove=True)
    host.wait_run_completed(refused["runId"])
    assert victim.exists()
    assert "approval/requested" not in methods(host, refused["runId"])


def test_an_auto_approving_session_types_into_its_programs_unasked(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    process_id = start_shell(host, llm, "auto")
    marker = tmp_path / "typed"
    typed = {"action": "submit", "session_id": process_id, "data": f"echo hi > {marker}"}
    llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    typing = run(host, "auto", autoApprove=True)
    host.wait_run_completed(typing["runId"])
    assert "approval/requested" not in methods(host, typing["runId"])
    wait = {"action": "wait", "session_id": process_id, "timeout": 5}
    llm.enqueue(Reply.tool_call("process", wait), Reply.text(["done"]))
    host.wait_run_completed(run(host, "auto")["runId"])
    assert marker.read_text() == "hi\n"


def test_a_subagent_within_an_auto_approving_turn_runs_its_command_unasked(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)
    victim = tmp_path / "victim"
    victim.mkdir()
    subagent_runs(llm, "wipe it", f"rm -rf {victim}")
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "wipe it"}), Reply.text(["done"]))
    wiping = run(host, "auto", autoApprove=True)
    assert host.wait_run_completed(wiping["runId"]).params["status"] == "complete"
    assert not victim.exists()
    assert "approval/requested" not in methods(host, wiping["runId"])
    held.release.set()


def test_a_background_subagent_of_an_auto_approving_session_still_runs_nothing_flagged(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # Scripted apart, not raced: the parent's command runs unasked, so the parent
    # could take both from a shared queue before the subagent's first call.
    parents, childs = tmp_path / "parents", tmp_path / "childs"
    for victim in (parents, childs):
        victim.mkdir()
    deletes = [Reply.tool_call("terminal", {"command": f"rm -rf {v}"}) for v in (parents, childs)]
    llm.enqueue_for("clean up", deletes[1], Reply.text(["done"]))
    llm.enqueue(
        Reply.tool_call("delegate_task", {"goal": "clean up"}), deletes[0], Reply.text(["done"])
    )
    parent = run(host, "auto", autoApprove=True)
    # Either may come first, and waiting for one takes the other off the queue.
    assert host.wait_run_completed(parent["runId"]).params["status"] == "complete"
    subagent_ended(host)
    tried = [(p["name"], p["preview"]) for p in background_calls(host)]
    assert tried == [("terminal", f"rm -rf {childs}")]
    assert childs.exists()  # held as pending: hermes' background subagents ask nobody
    assert not parents.exists()  # the parent's ran unasked
    assert "approval/requested" not in methods(host, parent["runId"])


def test_an_auto_approving_session_still_asks_its_clarifying_questions(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # autoApprove answers approvals only: a question still waits for the host.
    llm.enqueue(Reply.tool_call("clarify", {"question": "Which colour?"}), Reply.text(["ok"]))
    asking = run(host, "auto", autoApprove=True)
    question = host.wait_for(
        lambda n: n.method == "clarify/requested" and n.params["runId"] == asking["runId"],
        timeout=60,
    )
    answer = {"runId": asking["runId"], "clarifyId": question.params["clarifyId"], "answer": "teal"}
    assert host.request("clarify/respond", answer) == {"outcome": "answered"}
    assert host.wait_run_completed(asking["runId"]).params["status"] == "complete"


def switch(host: HostClient, session_id: str, enabled: bool) -> dict[str, object]:
    params = {"sessionId": session_id, "enabled": enabled}
    return dict(host.request("session/autoApprove", params))


def test_turned_on_during_a_run_it_covers_the_runs_later_commands_not_the_pending_one(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    first, later = tmp_path / "first", tmp_path / "later"
    for victim in (first, later):
        victim.mkdir()
    llm.enqueue(
        Reply.tool_call("terminal", {"command": f"rm -rf {first}"}),
        Reply.tool_call("terminal", {"command": f"rm -rf {later}"}),
        Reply.text(["done"]),
    )
    going = run(host, "auto")
    ask = requested(host, going["runId"])
    assert switch(host, "auto", True) == {"sessionId": "auto", "autoApprove": True}
    assert auto(host)
    assert respond(host, going, ask, "deny") == {"outcome": "denied"}  # still pending
    assert host.wait_run_completed(going["runId"]).params["status"] == "complete"
    assert first.exists() and not later.exists()
    assert methods(host, going["runId"]).count("approval/requested") == 1


def test_turned_off_during_a_run_its_next_command_asks_again(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    llm.enqueue(  # a question holds the run while the host switches
        Reply.tool_call("clarify", {"question": "Go on?"}),
        Reply.tool_call("terminal", {"command": f"rm -rf {victim}"}),
        Reply.text(["done"]),
    )
    going = run(host, "auto", autoApprove=True)
    question = host.wait_for(
        lambda n: n.method == "clarify/requested" and n.params["runId"] == going["runId"],
        timeout=60,
    )
    assert switch(host, "auto", False) == {"sessionId": "auto", "autoApprove": False}
    answer = {"runId": going["runId"], "clarifyId": question.params["clarifyId"], "answer": "yes"}
    host.request("clarify/respond", answer)
    respond(host, going, requested(host, going["runId"]), "deny")
    host.wait_run_completed(going["runId"])
    assert victim.exists()


def test_a_session_no_worker_holds_gets_it_for_its_first_run(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    assert switch(host, "fresh", True) == {"sessionId": "fresh", "autoApprove": True}
    assert host.request("session/status", {"sessionId": "fresh"})["autoApprove"] is True
    dangerous(llm, tmp_path / "victim")
    first = run(host, "fresh")
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    assert not (tmp_path / "victim").exists()
    assert "approval/requested" not in methods(host, first["runId"])
