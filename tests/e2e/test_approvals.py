"""Dangerous commands through the real binary and real hermes-agent: nothing runs
until the host answers approval/requested, and every request is closed by
approval/resolved."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError

from .conftest import (
    StartHost,
    background_calls,
    delegating,
    received,
    subagent_runs,
    tool_result,
    within_the_turn,
)


def dangerous(llm: ScriptedLLM, victim: Path) -> str:
    """Script one turn whose tool call deletes ``victim``; returns the command."""
    victim.mkdir(exist_ok=True)
    command = f"rm -rf {victim}"
    llm.enqueue(Reply.tool_call("terminal", {"command": command}), Reply.text(["done"]))
    return command


def requested(host: HostClient, run_id: str) -> Notification:
    return host.wait_for(
        lambda n: n.method == "approval/requested" and n.params["runId"] == run_id, timeout=60
    )


def waiting(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> tuple[Path, dict[str, Any], Notification]:
    """A run whose dangerous tool call waits: the victim, the run, its approval/requested."""
    victim = tmp_path / "victim"
    dangerous(llm, victim)
    run = host.request("run/start", {"message": "clean up"})
    return victim, run, requested(host, run["runId"])


def respond(
    host: HostClient, run: dict[str, Any], ask: Notification, decision: str, **extra: Any
) -> Any:
    params = {"runId": run["runId"], "approvalId": ask.params["approvalId"], "decision": decision}
    return host.request("approval/respond", {**params, **extra})


def methods(host: HostClient, run_id: str) -> list[str]:
    return [n.method for n in host.run_notifications(run_id)]


def set_approvals(home: Path, **approvals: Any) -> None:
    path = home / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["approvals"] = approvals
    path.write_text(yaml.safe_dump(config))


def test_a_dangerous_command_waits_for_the_host_and_runs_once_approved(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    command = dangerous(llm, victim)
    run = host.request("run/start", {"message": "clean up"})
    ask = requested(host, run["runId"])
    assert ask.params["sessionId"] == run["sessionId"]
    assert ask.params["command"] == command
    assert ask.params["description"] and ask.params["patternKeys"]
    assert isinstance(ask.params["allowPermanent"], bool)
    assert ask.params["toolCall"] is None  # a command, not a call a plugin sent
    assert victim.exists()  # nothing ran unasked

    answer = {"runId": run["runId"], "approvalId": ask.params["approvalId"], "decision": "once"}
    assert host.request("approval/respond", answer) == {"outcome": "approved"}
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "complete"
    assert not victim.exists()
    notes = host.run_notifications(run["runId"])
    [resolved] = [n for n in notes if n.method == "approval/resolved"]
    assert resolved.params == {
        "runId": run["runId"],
        "sessionId": run["sessionId"],
        "seq": resolved.params["seq"],
        "approvalId": ask.params["approvalId"],
        "outcome": "approved",
        "decision": "once",
    }
    assert ask.params["seq"] < resolved.params["seq"] < done.params["seq"]
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    # Answered: a second answer finds nothing pending.
    with pytest.raises(RpcError) as err:
        host.request("approval/respond", answer)
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL


def test_a_denied_command_never_runs_and_the_agent_hears_the_reason(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim, run, ask = waiting(host, llm, tmp_path)
    answer = {
        "runId": run["runId"],
        "approvalId": ask.params["approvalId"],
        "decision": "deny",
        "reason": "keep the victim",
    }
    assert host.request("approval/respond", answer) == {"outcome": "denied"}
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert victim.exists()
    result = tool_result(host, run["runId"])
    assert "BLOCKED" in result and "keep the victim" in result
    assert methods(host, run["runId"]).count("approval/resolved") == 1


def test_an_unanswered_request_times_out_blocked_and_says_so(
    start_host: Any, home: Path, llm: ScriptedLLM, tmp_path: Path
) -> None:
    set_approvals(home, mode="manual", timeout=1)
    host = start_host()
    host.initialize()
    victim, run, ask = waiting(host, llm, tmp_path)
    resolved = host.wait_for(lambda n: n.method == "approval/resolved", timeout=30)
    assert resolved.params["approvalId"] == ask.params["approvalId"]
    assert resolved.params["outcome"] == "timed_out" and resolved.params["decision"] is None
    host.wait_run_completed(run["runId"])
    assert victim.exists()
    assert "BLOCKED" in tool_result(host, run["runId"])
    with pytest.raises(RpcError) as err:
        respond(host, run, ask, "once")
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL


def test_interrupting_a_run_cancels_its_pending_request(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim, run, ask = waiting(host, llm, tmp_path)
    host.request("run/interrupt", {"runId": run["runId"]})
    resolved = host.wait_for(lambda n: n.method == "approval/resolved", timeout=30)
    assert resolved.params["approvalId"] == ask.params["approvalId"]
    assert resolved.params["outcome"] == "cancelled"
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    assert victim.exists()


def test_without_an_approvals_mode_in_the_profile_the_host_is_asked(
    start_host: Any, home: Path, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes' own default ("smart") would let an auxiliary model decide instead.
    config = yaml.safe_load((home / "config.yaml").read_text())
    del config["approvals"]
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    victim, run, ask = waiting(host, llm, tmp_path)
    respond(host, run, ask, "deny")
    host.wait_run_completed(run["runId"])
    assert victim.exists()


def test_a_profiles_env_switching_off_hermes_ask_flags_still_has_the_host_asked(
    start_host: Any, home: Path, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes loads .env over the environment, at import and again as MCP discovery
    # reads its config: neither may turn off what makes a dangerous command wait.
    with (home / ".env").open("a") as env:
        env.write("HERMES_EXEC_ASK=0\nHERMES_INTERACTIVE=0\n")
    server = Path(__file__).with_name("fixtures") / "mcp_echo_server.py"
    config = yaml.safe_load((home / "config.yaml").read_text())
    echo = {"MCP_ECHO_PID_FILE": str(tmp_path / "echo.pid")}
    config["mcp_servers"] = {
        "echo": {"command": sys.executable, "args": [str(server)], "env": echo}
    }
    config["mcp_discovery_timeout"] = 60
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    victim, run, ask = waiting(host, llm, tmp_path)
    [echo_server] = host.request("mcp/status")["servers"]
    assert echo_server["status"] == "connected"  # its discovery re-read .env before the ask
    respond(host, run, ask, "deny")
    host.wait_run_completed(run["runId"])
    assert victim.exists()


def test_bad_approval_answers_get_named_errors(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(Reply.text(["hi"]))
    run = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(run["runId"])
    cases = [
        ({"runId": "run_nope", "approvalId": "appr_x", "decision": "once"}, ErrorType.UNKNOWN_RUN),
        (
            {"runId": run["runId"], "approvalId": "appr_x", "decision": "once"},
            ErrorType.UNKNOWN_APPROVAL,
        ),
        (
            {"runId": run["runId"], "approvalId": "appr_x", "decision": "yes"},
            ErrorType.INVALID_PARAMS,
        ),
        ({"runId": run["runId"], "decision": "once"}, ErrorType.INVALID_PARAMS),
    ]
    for params, kind in cases:
        with pytest.raises(RpcError) as err:
            host.request("approval/respond", params)
        assert err.value.kind is kind, params
    assert host.request("supervisor/status")["pid"] == host.proc.pid


def test_two_sessions_waiting_at_once_each_get_their_own_answer(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim_a, victim_b = tmp_path / "a", tmp_path / "b"
    victim_a.mkdir()
    victim_b.mkdir()
    llm.enqueue(Reply.tool_call("terminal", {"command": f"rm -rf {victim_a}"}))
    run_a = host.request("run/start", {"message": "clean a"})
    ask_a = requested(host, run_a["runId"])
    llm.enqueue(
        Reply.tool_call("terminal", {"command": f"rm -rf {victim_b}"}),
        Reply.text(["b done"]),
        Reply.text(["a done"]),
    )
    run_b = host.request("run/start", {"message": "clean b"})
    ask_b = requested(host, run_b["runId"])
    assert run_a["sessionId"] != run_b["sessionId"]
    assert str(victim_b) in ask_b.params["command"]

    # An approval is answered through its own run only.
    with pytest.raises(RpcError) as err:
        respond(host, run_a, ask_b, "once")
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL
    respond(host, run_b, ask_b, "once")
    host.wait_run_completed(run_b["runId"])
    assert not victim_b.exists() and victim_a.exists()
    respond(host, run_a, ask_a, "deny")
    host.wait_run_completed(run_a["runId"])
    assert victim_a.exists()


def test_a_worker_killed_while_a_request_waits_closes_the_request_then_the_run(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victim, run, ask = waiting(host, llm, tmp_path)
    pid = host.request("supervisor/status")["workers"][0]["pid"]
    os.kill(pid, signal.SIGKILL)
    done = host.wait_run_completed(run["runId"])
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    resolved = notes[-2]
    assert resolved.method == "approval/resolved"
    assert resolved.params == {
        "runId": run["runId"],
        "sessionId": run["sessionId"],
        "seq": done.params["seq"] - 1,
        "approvalId": ask.params["approvalId"],
        "outcome": "cancelled",
        "decision": None,
    }
    assert victim.exists()
    with pytest.raises(RpcError) as err:
        respond(host, run, ask, "once")
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL


def run_code(llm: ScriptedLLM, marker: Path) -> None:
    """Script one turn whose execute_code call writes ``marker``."""
    code = f"open({str(marker)!r}, 'w').write('ran')"
    llm.enqueue(Reply.tool_call("execute_code", {"code": code}), Reply.text(["done"]))


# What a turn asks to do, and whether it happened. execute_code runs arbitrary
# Python, past the terminal's command patterns, so hermes has the whole script
# approved; the bridge routes that too.
ASKS = {
    "terminal": (dangerous, lambda path: not path.exists(), "rm -rf"),
    "execute_code": (run_code, lambda path: path.exists(), "execute_code"),
}


@pytest.mark.parametrize("tool", sorted(ASKS))
def test_a_session_approval_covers_that_session_only(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, tool: str
) -> None:
    script, happened, shown = ASKS[tool]
    script(llm, tmp_path / "v1")
    first = host.request("run/start", {"message": "go"})
    ask = requested(host, first["runId"])
    assert ask.params["command"].startswith(shown)
    assert not happened(tmp_path / "v1")
    respond(host, first, ask, "session")
    host.wait_run_completed(first["runId"])
    assert happened(tmp_path / "v1")

    # Same session, same kind of call: no question this time.
    script(llm, tmp_path / "v2")
    again = host.request("run/start", {"message": "more", "sessionId": first["sessionId"]})
    host.wait_run_completed(again["runId"])
    assert "approval/requested" not in methods(host, again["runId"])
    assert happened(tmp_path / "v2")

    # Another session is asked again.
    script(llm, tmp_path / "v3")
    other = host.request("run/start", {"message": "go"})
    respond(host, other, requested(host, other["runId"]), "deny")
    host.wait_run_completed(other["runId"])
    assert not happened(tmp_path / "v3")


def test_input_typed_into_a_background_shell_is_approved_like_a_command_and_by_its_session_only(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes' process tool writes to any process's input unchecked: a harmless shell
    # would otherwise run anything typed into it.
    shell = {"command": "sh", "background": True, "pty": True}
    llm.enqueue(Reply.tool_call("terminal", shell), Reply.text(["started"]))
    run = host.request("run/start", {"message": "start a shell", "sessionId": "owner"})
    host.wait_run_completed(run["runId"])
    process_id = json.loads(tool_result(host, run["runId"]))["session_id"]
    victim = tmp_path / "victim"
    victim.mkdir()
    typed = {"action": "submit", "session_id": process_id, "data": f"rm -rf {victim}"}

    llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    run = host.request("run/start", {"message": "tidy", "sessionId": "owner"})
    ask = requested(host, run["runId"])
    assert str(victim) in ask.params["command"]
    respond(host, run, ask, "deny")
    host.wait_run_completed(run["runId"])
    assert "blocked" in tool_result(host, run["runId"])

    llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    run = host.request("run/start", {"message": "tidy", "sessionId": "stranger"})
    host.wait_run_completed(run["runId"])
    assert "another session" in tool_result(host, run["runId"])
    assert "approval/requested" not in methods(host, run["runId"])
    assert victim.is_dir()


def start_shell(host: HostClient, llm: ScriptedLLM, session: str) -> str:
    """A background interactive shell in ``session`` (needs no approval); its process id."""
    shell = {"command": "bash --norc", "background": True, "pty": True}
    llm.enqueue(Reply.tool_call("terminal", shell), Reply.text(["started"]))
    run = host.request("run/start", {"message": "start a shell", "sessionId": session})
    host.wait_run_completed(run["runId"])
    return str(json.loads(tool_result(host, run["runId"]))["session_id"])


@pytest.mark.parametrize(
    "pieces",
    [
        ["r\\\n", "m -rf {victim}\n"],
        ["m -rf {victim}\x01r\n"],
        ["alias x=rm\n", "x -rf {victim}\n"],
    ],
    ids=["continuation", "line-editing", "alias"],
)
def test_nothing_typed_into_a_running_program_reaches_it_without_the_hosts_answer(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, pieces: list[str]
) -> None:
    # Checking the text is not enough: a shell runs what it makes of its input.
    process_id = start_shell(host, llm, "owner")
    victim = tmp_path / "victim"
    victim.mkdir()
    for piece in pieces:
        typed = {"action": "write", "session_id": process_id, "data": piece.format(victim=victim)}
        llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    llm.enqueue(Reply.text(["done"]))
    run = host.request("run/start", {"message": "type", "sessionId": "owner"})
    ask = requested(host, run["runId"])
    assert ask.params["patternKeys"]  # the first piece already asks
    respond(host, run, ask, "deny")
    host.wait_run_completed(run["runId"])
    assert "blocked" in tool_result(host, run["runId"])
    assert victim.is_dir()


def test_the_host_may_let_a_session_type_into_its_programs_for_the_rest_of_the_session(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    process_id = start_shell(host, llm, "owner")
    marker = tmp_path / "typed"
    typed = {"action": "submit", "session_id": process_id, "data": f"echo hi > {marker}"}
    llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    run = host.request("run/start", {"message": "type", "sessionId": "owner"})
    ask = requested(host, run["runId"])
    assert ask.params["command"] == f"echo hi > {marker}\n"
    assert ask.params["patternKeys"] == ["process input"]
    respond(host, run, ask, "session")
    host.wait_run_completed(run["runId"])
    llm.enqueue(Reply.tool_call("process", typed), Reply.text(["done"]))
    again = host.request("run/start", {"message": "again", "sessionId": "owner"})
    host.wait_run_completed(again["runId"])
    assert "approval/requested" not in methods(host, again["runId"])


def racing_deletes(llm: ScriptedLLM, tmp_path: Path, *then: Reply) -> list[Path]:
    """Script a turn that delegates to a background subagent, then ``then``. After the
    dispatch the parent's next call and the subagent's first race for the script: each
    gets a command deleting a folder of its own (returned), told apart afterwards."""
    victims = [tmp_path / "first", tmp_path / "second"]
    for victim in victims:
        victim.mkdir()
    llm.enqueue(
        Reply.tool_call("delegate_task", {"goal": "clean up"}),
        *(Reply.tool_call("terminal", {"command": f"rm -rf {v}"}) for v in victims),
        *then,
    )
    return victims


def test_a_background_subagents_dangerous_command_never_runs_and_asks_nobody_in_its_name(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    victims = racing_deletes(llm, tmp_path)
    run = host.request("run/start", {"message": "delegate it"})
    ask = requested(host, run["runId"])  # the parent's own command asks, as any does
    [child_victim] = [v for v in victims if f"rm -rf {v}" != ask.params["command"]]
    host.wait_for(lambda n: n.method == "subagent/ended", timeout=60)

    tried = [(p["name"], p["preview"]) for p in background_calls(host)]
    assert tried == [("terminal", f"rm -rf {child_victim}")]
    assert child_victim.exists()  # hermes holds it as pending, and no one can approve it
    assert received(host, "approval/requested") == [ask]
    answer = {"runId": run["runId"], "approvalId": ask.params["approvalId"], "decision": "deny"}
    host.request("approval/respond", answer)
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert all(v.exists() for v in victims)


@pytest.mark.parametrize("worker", ["spawned", "forked"])
def test_a_subagent_run_within_the_turn_asks_the_host_in_its_parents_run(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path, worker: str
) -> None:
    host, held = within_the_turn(start_host, llm, home, worker)
    victims = {tmp_path / "one": "once", tmp_path / "two": "deny"}
    for victim in victims:
        victim.mkdir()
        subagent_runs(llm, f"wipe {victim.name}", f"rm -rf {victim}")
    tasks = [{"goal": f"wipe {v.name}"} for v in victims]  # a batch: its own threads
    llm.enqueue(Reply.tool_call("delegate_task", {"tasks": tasks}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "wipe both", "sessionId": "wiping"})

    asks = [requested(host, run["runId"]) for _ in victims]
    by_command = {a.params["command"]: a for a in asks}
    assert set(by_command) == {f"rm -rf {v}" for v in victims}
    tried = {  # what the run showed of each subagent's call, before it asked
        n.params["event"]["preview"]: n.params["seq"]
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event"
        and n.params["event"]["type"] == "tool.progress"
        and n.params["event"]["kind"] == "subagent.tool"
    }
    for command, ask in by_command.items():
        assert any(command.startswith(p) and s < ask.params["seq"] for p, s in tried.items())
    assert all(v.exists() for v in victims)  # nothing ran unasked
    for victim, decision in victims.items():
        respond(host, run, by_command[f"rm -rf {victim}"], decision)
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert [v.exists() for v in victims] == [False, True]
    assert methods(host, run["runId"]).count("approval/resolved") == 2
    held.release.set()


def test_interrupting_a_run_whose_subagent_waits_for_the_host_cancels_its_request(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)
    victim = tmp_path / "victim"
    victim.mkdir()
    command = f"rm -rf {victim}"
    llm.enqueue_for("wipe it", Reply.tool_call("terminal", {"command": command}))
    run = {"runId": delegating(host, llm, "wipe it", "wiping")}
    ask = requested(host, run["runId"])
    assert ask.params["command"] == command

    host.request("run/interrupt", {"runId": run["runId"]})
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    resolved = [
        n.params for n in host.run_notifications(run["runId"]) if n.method == "approval/resolved"
    ]
    assert [(r["approvalId"], r["outcome"]) for r in resolved] == [
        (ask.params["approvalId"], "cancelled")
    ]
    assert victim.exists()
    with pytest.raises(RpcError) as err:
        respond(host, run, ask, "once")
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL
    held.release.set()


def test_a_session_answer_to_a_subagent_within_the_turn_covers_the_session(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    subagent_runs(llm, "wipe first", f"rm -rf {first}")
    run = {"runId": delegating(host, llm, "wipe first", "wiping")}
    respond(host, run, requested(host, run["runId"]), "session")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"

    dangerous(llm, second)  # the same kind of command, the session's own agent this time
    again = host.request("run/start", {"message": "wipe more", "sessionId": "wiping"})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"
    assert "approval/requested" not in methods(host, again["runId"])
    assert not first.exists() and not second.exists()
    held.release.set()


def test_a_subagent_within_the_turn_that_changes_directory_leaves_its_sessions_alone(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    # hermes keeps a subagent's working directory apart from its parent's: carrying
    # the session's approval key must not merge them.
    host, held = within_the_turn(start_host, llm, home)
    workspace, elsewhere = tmp_path / "workspace", tmp_path / "elsewhere"
    workspace.mkdir()
    elsewhere.mkdir()
    subagent_runs(llm, "wander off", f"cd {elsewhere} && pwd")
    llm.enqueue(
        Reply.tool_call("delegate_task", {"goal": "wander off"}),
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.text(["done"]),
    )
    run = host.request(
        "run/start", {"message": "go", "sessionId": "home", "workspace": str(workspace)}
    )
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    [where] = [
        json.loads(n.params["event"]["result"])["output"].strip()
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event"
        and n.params["event"]["type"] == "tool.completed"
        and n.params["event"]["name"] == "terminal"
    ]
    assert where == str(workspace)
    held.release.set()


@pytest.mark.parametrize("drop", ["session/delete", "session/destroy"])
def test_a_session_approval_ends_when_its_worker_lets_the_session_go(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, drop: str
) -> None:
    # Deleted, the id starts a new conversation; destroyed, the same one is loaded afresh,
    # as a new worker would load it: in neither does an earlier "session" answer hold.
    dangerous(llm, tmp_path / "v1")
    first = host.request("run/start", {"message": "go", "sessionId": "reused"})
    respond(host, first, requested(host, first["runId"]), "session")
    host.wait_run_completed(first["runId"])
    assert not (tmp_path / "v1").exists()

    host.request(drop, {"sessionId": "reused"})
    victim = tmp_path / "v2"
    dangerous(llm, victim)
    again = host.request("run/start", {"message": "go", "sessionId": "reused"})
    respond(host, again, requested(host, again["runId"]), "deny")
    host.wait_run_completed(again["runId"])
    assert victim.exists()
