"""Runs through the real binary: tool events, the agent's plan, each call's usage and cost."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.testing.replies import Gate

from .conftest import StartHost, run_to_end, tool_result, within_the_turn


def test_tools_run_in_the_sessions_workspace_and_report_tool_events_from_generation_on(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "where?", "workspace": str(workspace)})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    started = [e for e in events if e["type"] == "tool.started"]
    completed = [e for e in events if e["type"] == "tool.completed"]
    assert started and started[0]["name"] == "terminal" and started[0]["args"]["command"] == "pwd"
    # While the model still streamed the call, the host heard which tool was coming.
    generating = [i for i, e in enumerate(events) if e["type"] == "tool.generating"]
    assert [events[i]["name"] for i in generating] == ["terminal"]
    assert generating[0] < events.index(started[0])
    assert completed and completed[0]["toolCallId"] == started[0]["toolCallId"]
    assert isinstance(completed[0]["durationMs"], int) and completed[0]["durationMs"] >= 0
    assert str(workspace) in completed[0]["result"]
    assert notes[-1].params["status"] == "complete"


def test_a_session_without_a_workspace_works_in_the_profiles_terminal_cwd_setting(
    any_host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host = any_host  # its worker starts (spawned, or forked) at the first request
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Project rule: PROJECT-CONTEXT-MARK\n")
    config = yaml.safe_load((home / "config.yaml").read_text())
    config.setdefault("terminal", {})["cwd"] = str(project)
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    # Before any command of the agent's (hermes copies the setting at its first).
    shell = host.request("shell/exec", {"command": ["pwd"]})
    assert (shell["stdout"], shell["workspace"]) == (f"{project}\n", str(project))
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))

    run, _notes = run_to_end(host, {"message": "where?"})

    assert json.loads(tool_result(host, run["runId"]))["output"] == str(project)
    [system] = [m for m in llm.requests[0]["messages"] if m["role"] == "system"]
    assert "PROJECT-CONTEXT-MARK" in system["content"] and str(project) in system["content"]

    # As hermes, the worker reads terminal.* as it starts: a change applies after a restart.
    other = tmp_path / "other"
    other.mkdir()
    host.request("config/write", {"edits": [{"keyPath": ["terminal", "cwd"], "value": str(other)}]})
    assert host.request("shell/exec", {"command": ["pwd"]})["stdout"] == f"{project}\n"
    host.request("worker/restart", {})
    assert host.request("shell/exec", {"command": ["pwd"]})["stdout"] == f"{other}\n"


def test_each_completed_call_says_whether_it_failed_as_hermes_reads_its_result(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "echo fine"}),
        Reply.tool_call("terminal", {"command": "exit 3"}),
        Reply.tool_call("read_file", {"path": str(tmp_path / "missing.txt")}),
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "try things"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    done = [(e["name"], e["isError"]) for e in events if e["type"] == "tool.completed"]
    assert done == [("terminal", False), ("terminal", True), ("read_file", True)]
    assert notes[-1].params["status"] == "complete"


def test_each_model_call_is_followed_by_a_usage_event_and_the_last_equals_the_runs_usage(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    kinds = [e["type"] for e in events]
    used = [e["usage"] for e in events if e["type"] == "usage"]
    assert len(used) == 2 == notes[-1].params["result"]["apiCalls"]  # one per model call
    # The first call's usage reaches the host before the tool it asked for runs.
    assert kinds.index("usage") < kinds.index("tool.started")
    second = kinds.index("step", 1)  # the second model call is about to be made
    assert kinds[:second].count("usage") == 1 and kinds[second:].count("usage") == 1
    assert used[-1] == notes[-1].params["result"]["usage"]
    first, last = used
    assert 0 < first["inputTokens"] < last["inputTokens"]  # the run's calls so far, added up
    assert first["contextTokens"] == first["inputTokens"]  # the window after the first call
    assert first["contextLength"] == 131072


LIMITS = {
    "x-ratelimit-limit-requests": "60",
    "x-ratelimit-remaining-requests": "59",
    "x-ratelimit-reset-requests": "12.5",
    "x-ratelimit-limit-tokens": "100000",
    "x-ratelimit-remaining-tokens": "98000",
    "x-ratelimit-reset-tokens": "30",
}


def test_a_providers_rate_limits_reach_the_host_after_each_call_that_told_them(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "echo hi"}).with_headers(LIMITS),
        Reply.text(["done"]),  # says none: the host keeps what it heard
    )
    before = time.time()
    _run, notes = run_to_end(host, {"message": "go"})
    after = time.time()
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    kinds = [e["type"] for e in events]
    [told] = [json.loads(json.dumps(e)) for e in events if e["type"] == "usage.limits"]
    # Told as the first call's response began, before that call's usage.
    assert kinds.index("step") < kinds.index("usage.limits") < kinds.index("usage")
    resets = told["requestsPerMinute"].pop("resetsAt"), told["tokensPerMinute"].pop("resetsAt")
    assert told == {
        "type": "usage.limits",
        "provider": "custom",
        "requestsPerMinute": {"limit": 60, "remaining": 59},
        "requestsPerHour": None,
        "tokensPerMinute": {"limit": 100000, "remaining": 98000},
        "tokensPerHour": None,
    }
    assert (before + 12.5) * 1000 <= resets[0] <= (after + 12.5) * 1000
    assert resets[1] - resets[0] == 17_500

    llm.enqueue(
        Reply.text(["again"]).with_headers({**LIMITS, "x-ratelimit-remaining-requests": "3"})
    )
    _run, notes = run_to_end(host, {"message": "more", "sessionId": _run["sessionId"]})
    [told] = [
        n.params["event"]
        for n in notes
        if n.method == "run/event" and n.params["event"]["type"] == "usage.limits"
    ]
    assert told["requestsPerMinute"]["remaining"] == 3


def test_a_model_the_provider_lists_a_price_for_has_the_runs_cost_in_its_usage(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.pricing = {"prompt": "0.000002", "completion": "0.00001"}  # USD per token of test-model
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    used = notes[-1].params["result"]["usage"]
    price = used["inputTokens"] * 0.000002 + used["outputTokens"] * 0.00001
    assert used["costUsd"] == pytest.approx(price, abs=1e-9) and price > 0
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    first = next(e["usage"] for e in events if e["type"] == "usage")
    assert 0 < first["costUsd"] < used["costUsd"]  # the first call's, then both calls'
    # A model the provider lists no price for: no cost, and no guess at one.
    _run, notes = run_to_end(host, {"message": "again", "model": "unpriced-model"})
    assert notes[-1].params["result"]["usage"]["costUsd"] is None


def test_the_agents_todo_list_reaches_the_host_as_a_plan_each_time_it_writes_it(
    host: HostClient, llm: ScriptedLLM
) -> None:
    plan = [
        {"id": "1", "content": "read the code", "status": "completed"},
        {"id": "2", "content": "fix the bug", "status": "in_progress"},
    ]
    progress = [{"id": "2", "status": "completed"}, {"id": "3", "content": "test it"}]
    llm.enqueue(
        Reply.tool_call("todo", {"todos": plan}),
        Reply.tool_call("todo", {"todos": progress, "merge": True}),
        Reply.tool_call("todo", {}),  # a read writes nothing
        Reply.text(["done"]),
    )
    _run, notes = run_to_end(host, {"message": "plan it"})
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    plans = [e["items"] for e in events if e["type"] == "plan"]
    assert plans == [
        plan,
        [  # hermes merged the update into its list, and a new task starts pending
            {"id": "1", "content": "read the code", "status": "completed"},
            {"id": "2", "content": "fix the bug", "status": "completed"},
            {"id": "3", "content": "test it", "status": "pending"},
        ],
    ]
    first = next(i for i, e in enumerate(events) if e["type"] == "plan")
    assert events[first - 1]["type"] == "tool.completed" and events[first - 1]["name"] == "todo"
    assert notes[-1].params["status"] == "complete"


def test_tool_args_json_cannot_carry_arrive_as_strings_and_the_run_still_completes(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # The model's arguments say NaN (Python's json accepts it); strict JSON on the wire cannot.
    args = {"command": "echo ok", "timeout": float("nan")}
    llm.enqueue(Reply.tool_call("terminal", args), Reply.text(["done"]))
    _run, notes = run_to_end(host, {"message": "go"})
    started = [
        n.params["event"]
        for n in notes
        if n.method == "run/event" and n.params["event"]["type"] == "tool.started"
    ]
    assert started and started[0]["args"] == {"command": "echo ok", "timeout": "nan"}
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[-1].method == "run/completed" and notes[-1].params["status"] == "complete"


def test_sessions_share_the_shell_yet_each_command_runs_under_its_own_session(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # hermes' saved shell state is the worker's, and held the first session's identity.
    show = 'echo "$SHARED|$HERMES_SESSION_ID|$HERMES_SESSION_KEY"'
    said = {}
    for sid, command in (("one", "export SHARED=yes; " + show), ("two", show), ("one", show)):
        llm.enqueue(Reply.tool_call("terminal", {"command": command}), Reply.text(["done"]))
        run = host.request("run/start", {"sessionId": sid, "message": "who am i"})
        assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
        said[sid] = json.loads(tool_result(host, run["runId"]))["output"]
    assert said["two"] == "yes|two|hermes-stdio:two"  # the variable is shared, not the identity
    assert said["one"] == "yes|one|hermes-stdio:one"


def results(host: HostClient, run_id: str) -> dict[str, str]:
    """What each tool the run called gave, by tool name (the last call's)."""
    return {
        n.params["event"]["name"]: str(n.params["event"]["result"])
        for n in host.run_notifications(run_id)
        if (n.params.get("event") or {}).get("type") == "tool.completed"
    }


def test_a_sessions_tools_and_later_turns_follow_its_commands_cd_until_its_workspace_changes(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    here = "import os; print(os.getcwd())"
    one, two = tmp_path / "one", tmp_path / "two"
    (one / "sub").mkdir(parents=True)
    two.mkdir()
    (one / "sub" / "x.txt").write_text("IN-SUB\n")
    (one / "x.txt").write_text("IN-WORKSPACE\n")
    (one / "sub" / "y.txt").write_text("Y-IN-SUB\n")
    (one / "y.txt").write_text("Y-IN-WORKSPACE\n")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "cd sub"}),
        Reply.tool_call("read_file", {"path": "x.txt"}),
        Reply.tool_call("execute_code", {"code": here}),
        Reply.text(["done"]),
    )
    # hermes asks before any script runs: these turns are approved ahead.
    params = {"workspace": str(one), "autoApprove": True}
    first, _ = run_to_end(host, {"message": "look around", **params})
    got = results(host, first["runId"])
    assert "IN-SUB" in got["read_file"], got["read_file"]
    assert json.loads(got["execute_code"])["output"].strip() == str(one / "sub")

    # Another session of the worker is not moved; the first's next turn is still there.
    llm.enqueue(Reply.tool_call("execute_code", {"code": here}), Reply.text(["done"]))
    other, _ = run_to_end(host, {"message": "where?", "workspace": str(two), "autoApprove": True})
    assert json.loads(results(host, other["runId"])["execute_code"])["output"].strip() == str(two)
    sid = first["sessionId"]
    llm.enqueue(
        Reply.tool_call("read_file", {"path": "y.txt"}),  # before any command of the turn
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.text(["done"]),
    )
    again, _ = run_to_end(host, {"message": "where?", "sessionId": sid})
    got = results(host, again["runId"])
    assert "Y-IN-SUB" in got["read_file"], got["read_file"]
    assert json.loads(got["terminal"])["output"] == str(one / "sub")

    # A new workspace starts its commands and tools there.
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.tool_call("execute_code", {"code": here}),
        Reply.text(["done"]),
    )
    moved, _ = run_to_end(host, {"message": "where?", "sessionId": sid, "workspace": str(two)})
    got = results(host, moved["runId"])
    assert json.loads(got["terminal"])["output"] == str(two)
    assert json.loads(got["execute_code"])["output"].strip() == str(two)


def test_a_subagent_starts_where_its_sessions_commands_cd_ed_and_its_cd_stays_its_own(
    start_host: StartHost, llm: ScriptedLLM, home: Path, ws: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)  # the subagent runs in the turn
    (ws / "sub" / "deeper").mkdir(parents=True)
    llm.enqueue_for(
        "look here",
        Reply.tool_call("terminal", {"command": "pwd; cd deeper"}),
        Reply.text(["done"]),
    )
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "cd sub"}),
        Reply.tool_call("delegate_task", {"goal": "look here"}),
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.text(["done"]),
    )
    run, _ = run_to_end(host, {"message": "go", "workspace": str(ws)})
    # The first command to print anything is the subagent's pwd (the turn's cd prints none).
    printed = (
        json.loads(str(m["content"])).get("output")
        for body in llm.requests
        for m in body["messages"]
        if m["role"] == "tool" and str(m["content"]).startswith("{")
    )
    assert next(out for out in printed if out) == str(ws / "sub")
    assert json.loads(results(host, run["runId"])["terminal"])["output"] == str(ws / "sub")
    held.release.set()


def beside_another_session(
    host: HostClient, llm: ScriptedLLM, dirs: tuple[Path, Path], held: Reply, *then: Reply
) -> str:
    """A turn of a session in ``dirs[0]`` whose first reply, ``held``, reaches its agent
    only after another session's turn in ``dirs[1]`` moved the worker's shared shell
    there; then ``then``. Its run id, once it completed."""
    gate = Gate()
    llm.enqueue_for("alpha", dataclasses.replace(held, gate=gate), *then)
    first = host.request("run/start", {"message": "alpha", "workspace": str(dirs[0])})
    assert gate.arrived.wait(30)
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    run_to_end(host, {"message": "beta", "workspace": str(dirs[1])})
    gate.release.set()
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    return str(first["runId"])


def test_a_sessions_file_tools_read_and_search_its_own_workspace_while_another_works_beside_it(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for where in (one, two):
        where.mkdir()
        (where / "x.txt").write_text(f"IN-{where.name.upper()}\n")
    (one / "only-one.txt").write_text("1\n")
    run_id = beside_another_session(
        host,
        llm,
        (one, two),
        Reply.tool_call("read_file", {"path": "x.txt"}),
        Reply.tool_call("search_files", {"pattern": "*.txt", "target": "files"}),
        Reply.text(["done"]),
    )
    got = results(host, run_id)
    assert "IN-ONE" in got["read_file"], got["read_file"]
    assert sorted(json.loads(got["search_files"])["files"]) == ["./only-one.txt", "./x.txt"]


def test_a_batch_naming_one_file_twice_runs_in_order_while_another_session_moved_the_shell(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes runs a batch's file calls at once only when they touch different files,
    # and took a relative path in the shared shell's directory: another session's.
    one, two = tmp_path / "one", tmp_path / "two"
    for where in (one, two):
        where.mkdir()
    batch = Reply.tool_calls(
        [
            ("write_file", {"path": "notes.txt", "content": "NEW\n"}),
            ("read_file", {"path": str(one / "notes.txt")}),
        ]
    )
    run_id = beside_another_session(host, llm, (one, two), batch, Reply.text(["done"]))

    order = [
        (event["type"], event["name"])
        for n in host.run_notifications(run_id)
        if (event := n.params.get("event") or {}).get("type") in ("tool.started", "tool.completed")
    ]
    assert order == [
        ("tool.started", "write_file"),
        ("tool.completed", "write_file"),
        ("tool.started", "read_file"),
        ("tool.completed", "read_file"),
    ]
    assert "NEW" in results(host, run_id)["read_file"]


def test_a_subagent_within_the_turn_is_told_its_sessions_workspace(
    start_host: StartHost, llm: ScriptedLLM, home: Path, ws: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home)
    llm.enqueue_for("look here", Reply.text(["seen"]))
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "look here"}), Reply.text(["done"]))
    run_to_end(host, {"message": "go", "workspace": str(ws)})
    [child] = [b for b in llm.requests if "look here" in str(b["messages"][0]["content"])]
    prompt = str(child["messages"][0]["content"])
    held.release.set()
    # hermes told it the worker's process directory (the profile's home) for both.
    assert f"WORKSPACE PATH:\n{ws}\n" in prompt
    assert f"Current working directory: {ws}\n" in prompt
