"""cron/run through the real binary and real hermes-agent: a host runs a profile's
cron job now, as hermes' own ``hermes cron run`` does, and follows it as a run of
its own: its agent's commands are asked about in that run, run/completed carries
what the job answered, hermes records the run and saves its output, and
run/interrupt stops the job's agent."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.testing.replies import Gate
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import opened_by_reader, received, tool_result
from .test_cron import cron_job, deny_asked, interrupted_while_held
from .test_steer import STEER, steer, tool_messages


def test_a_job_run_now_is_a_run_whose_commands_the_host_is_asked_about(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    job = cron_job(home, "clean up")
    victim = tmp_path / "victim"
    victim.mkdir()
    llm.enqueue(
        Reply.tool_call("terminal", {"command": f"rm -rf {victim}"}),
        Reply.text(["job done"]),
    )
    run = host.request("cron/run", {"jobId": job})
    assert set(run) == {"runId", "sessionId"}
    deny_asked(host, run["runId"], f"rm -rf {victim}")  # asked in this run
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["error"]) == ("complete", None)
    assert done["result"]["finalResponse"] == "job done"
    assert done["result"]["apiCalls"] == 2 and done["result"]["messageCount"] >= 4
    assert victim.exists()

    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    # The job's agent's activity reaches the run as a turn's does (its text does not
    # stream: hermes calls a cron job's chat-completions model whole).
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    [tool] = [e for e in events if e["type"] == "tool.started"]
    assert (tool["name"], tool["args"]) == ("terminal", {"command": f"rm -rf {victim}"})
    assert [e["toolCallId"] for e in events if e["type"] == "tool.completed"] == [
        tool["toolCallId"]
    ]
    started = notes[0]
    assert started.method == "run/started"
    assert (started.params["profile"], started.params["model"], started.params["trigger"]) == (
        "default",
        None,
        None,
    )
    # hermes recorded the run and saved its output, as its scheduler does.
    [listed] = host.request("cron/list", {})["jobs"]
    assert (listed["lastStatus"], listed["lastRunAt"] is not None) == ("ok", True)
    [output] = host.request("cron/output", {"jobId": job})["outputs"]
    assert "job done" in output["text"]
    # The run's session holds nothing: the job's conversation is hermes' own.
    status = host.request("session/status", {"sessionId": run["sessionId"]})
    assert (status["loaded"], status["running"]) == (False, False)


def test_an_interrupt_stops_the_jobs_agent_and_ends_the_run_interrupted(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "think for ever")
    held = Gate()
    llm.enqueue(Reply.text(["never sent"], gate=held))
    run = host.request("cron/run", {"jobId": job})
    done = interrupted_while_held(host, run["runId"], held)  # in the job's model call
    assert done["status"] == "interrupted"
    assert done["result"]["finalResponse"] != "never sent"
    [listed] = host.request("cron/list", {})["jobs"]
    assert listed["lastRunAt"] is not None  # hermes recorded the run, as it judged it


def test_a_paused_or_unknown_job_is_refused_and_nothing_runs(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "paused one")
    host.request("cron/pause", {"jobId": job})
    with pytest.raises(RpcError) as err:
        host.request("cron/run", {"jobId": job})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.jobId"
    with pytest.raises(RpcError) as err:
        host.request("cron/run", {"jobId": job, "profile": "work"})
    assert err.value.kind is ErrorType.UNKNOWN_CRON_JOB and err.value.data["jobId"] == job
    assert not received(host, "run/started")
    [listed] = host.request("cron/list", {})["jobs"]
    assert listed["lastRunAt"] is None


def test_a_job_its_worker_runs_now_is_refused_until_that_run_ends(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "slow one")
    held = Gate()
    llm.enqueue(Reply.text(["first"], gate=held), Reply.text(["second"]))
    first = host.request("cron/run", {"jobId": job})
    assert held.arrived.wait(30)
    try:
        with pytest.raises(RpcError) as err:
            host.request("cron/run", {"jobId": job})
        assert err.value.kind is ErrorType.INVALID_PARAMS
        assert err.value.data["field"] == "params.jobId"
    finally:
        held.release.set()
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    again = host.request("cron/run", {"jobId": job})
    done = host.wait_run_completed(again["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "second")
    assert len(received(host, "run/started")) == 2


def test_a_job_run_for_its_last_time_completes_though_hermes_removes_it(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    made = host.request("cron/create", {"schedule": "every 1h", "prompt": "once", "repeat": 1})
    job = made["job"]["jobId"]
    llm.enqueue(Reply.text(["last time"]))
    run = host.request("cron/run", {"jobId": job})
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["error"]) == ("complete", None)
    assert done["result"]["finalResponse"] == "last time"
    assert host.request("cron/list", {})["jobs"] == []  # its repeat is done: hermes removed it


def test_steering_a_jobs_run_reaches_its_agent_with_the_next_tool_result(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "say hi")
    held = Gate()
    llm.enqueue(
        replace(Reply.tool_call("terminal", {"command": "echo hi"}), gate=held),
        Reply.tool_call("terminal", {"command": "echo again"}),
        Reply.text(["done"]),
    )
    run = host.request("cron/run", {"jobId": job})
    assert held.arrived.wait(30)
    assert steer(host, run) == {"accepted": True}  # before its first tool call
    held.release.set()
    host.wait_for(  # the first tool call has started: later text goes to the agent
        lambda n: (
            n.params.get("runId") == run["runId"]
            and n.method == "run/event"
            and n.params["event"]["type"] == "tool.completed"
        )
    )
    assert steer(host, run, "and BANANA") == {"accepted": True}
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "done")
    seen = "\n".join(str(m.get("content")) for b in llm.requests for m in b.get("messages") or [])
    assert STEER in seen and "BANANA" in seen
    assert tool_messages(llm)


def test_a_script_job_running_leaves_the_workers_directory_to_its_other_sessions(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    project, fifo = tmp_path / "project", tmp_path / "hold"
    project.mkdir()
    os.mkfifo(fifo)
    (home / "scripts").mkdir(exist_ok=True)
    (home / "scripts" / "hold.sh").write_text(f"cat {fifo}\necho held\n")
    job = cron_job(home, None, script="hold.sh", workdir=str(project), no_agent=True)
    before = host.request("shell/exec", {"command": ["pwd"]})["stdout"]

    run = host.request("cron/run", {"jobId": job})["runId"]
    hold = opened_by_reader(fifo)  # the script reads it: the job is running
    during = host.request("shell/exec", {"command": ["pwd"]})["stdout"]
    os.close(hold)  # its read ends: the job ends
    done = host.wait_run_completed(run).params

    assert done["status"] == "complete"
    assert during == before != f"{project}\n"
    [output] = host.request("cron/output", {"jobId": job})["outputs"]
    assert "held" in output["text"]  # the script ran, and its output was saved


def workdir_job(host: HostClient, tmp_path: Path, prompt: str) -> tuple[Path, str]:
    """A job whose workdir is a new ``project`` directory holding an AGENTS.md that
    says JOB-CONTEXT-MARK: that directory and the job's id."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Job rule: JOB-CONTEXT-MARK\n")
    made = {"schedule": "every 1h", "prompt": prompt, "workdir": str(project)}
    return project, host.request("cron/create", made)["job"]["jobId"]


def test_a_job_with_a_workdir_running_leaves_a_session_without_one_in_the_workers_directory(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes points the whole process's TERMINAL_CWD at a job's workdir while it runs.
    project, job = workdir_job(host, tmp_path, "JOB: wait")
    held = Gate()
    llm.enqueue_for("JOB:", Reply.text(["job done"], gate=held))
    job_run = host.request("cron/run", {"jobId": job})["runId"]
    assert held.arrived.wait(60)  # the job's agent is running
    here = host.request("shell/exec", {"command": ["pwd"]})["stdout"].strip()
    llm.enqueue_for(
        "TURN:",
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.tool_call("write_file", {"path": "rel.txt", "content": "turn\n"}),
        Reply.text(["ok"]),
    )
    turn = host.request("run/start", {"message": "TURN: where am I"})["runId"]
    assert host.wait_run_completed(turn).params["status"] == "complete"
    held.release.set()
    assert host.wait_run_completed(job_run).params["status"] == "complete"

    ran = [json.loads(t) for t in tool_messages(llm)]
    assert ran[0]["output"] == here != str(project)
    assert (Path(here) / "rel.txt").read_text() == "turn\n"
    assert not (project / "rel.txt").exists()
    # The turn's agent, built meanwhile, names the worker's directory and not the
    # job's, and takes none of the job's project context.
    assert "JOB-CONTEXT-MARK" in system_prompt(llm, "JOB:")
    assert "JOB-CONTEXT-MARK" not in system_prompt(llm, "TURN:")
    assert here in system_prompt(llm, "TURN:")


def system_prompt(llm: ScriptedLLM, marker: str) -> str:
    """The system prompt of the first model request whose messages hold ``marker``."""
    for body in llm.requests:
        messages = body.get("messages") or []
        if any(marker in str(m.get("content")) for m in messages if m.get("role") == "user"):
            return "".join(str(m.get("content")) for m in messages if m.get("role") == "system")
    raise AssertionError(f"no model request holds {marker!r}")


def test_two_jobs_with_workdirs_run_at_once_leave_the_worker_in_its_own_directory(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    # hermes saves the TERMINAL_CWD to put back before it waits for the job running.
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    made = {"schedule": "every 1h", "prompt": "JOB one:", "workdir": str(tmp_path / "one")}
    one = host.request("cron/create", made)["job"]["jobId"]
    fifo = tmp_path / "hold"
    os.mkfifo(fifo)
    (home / "scripts").mkdir(exist_ok=True)
    (home / "scripts" / "hold.sh").write_text(f"cat {fifo}\necho go\n")
    two = cron_job(home, "JOB two:", script="hold.sh", workdir=str(tmp_path / "two"))
    here = host.request("shell/exec", {"command": ["pwd"]})["stdout"].strip()
    held = Gate()
    llm.enqueue_for("JOB one:", Reply.text(["one done"], gate=held))
    llm.enqueue_for("JOB two:", Reply.text(["two done"]))
    first = host.request("cron/run", {"jobId": one})["runId"]
    assert held.arrived.wait(60)
    second = host.request("cron/run", {"jobId": two})["runId"]
    try:  # bounded: the second job's script is the first thing it runs
        early: int | None = opened_by_reader(fifo, timeout=1)
    except AssertionError:
        early = None
    if early is not None:  # both at once: the second saves the first's TERMINAL_CWD now
        os.close(early)
    held.release.set()
    if early is None:
        os.close(opened_by_reader(fifo))
    for run in (first, second):
        assert host.wait_run_completed(run).params["status"] == "complete"

    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["ok"]))
    turn = host.request("run/start", {"message": "where now"})["runId"]
    assert host.wait_run_completed(turn).params["status"] == "complete"
    assert json.loads(tool_result(host, turn))["output"] == here
    assert early is None  # the second job waited for the first


def test_a_job_a_turns_cronjob_tool_runs_reads_its_workdir_and_leaves_the_turn_as_it_was(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    project, job = workdir_job(host, tmp_path, "JOB: where")
    who = "echo session=$HERMES_SESSION_ID platform=$HERMES_SESSION_PLATFORM; pwd"
    llm.enqueue(
        Reply.tool_call("terminal", {"command": who}),
        Reply.tool_call("cronjob", {"action": "run", "job_id": job}),
        Reply.text(["job done"]),  # the job's agent
        Reply.tool_call("terminal", {"command": who}),
        Reply.text(["ran it"]),
    )
    turn = host.request("run/start", {"message": "TURN: run my job"})
    assert host.wait_run_completed(turn["runId"]).params["status"] == "complete"

    [output] = host.request("cron/output", {"jobId": job})["outputs"]
    assert "job done" in output["text"]
    job_prompt = system_prompt(llm, "JOB:")
    assert "JOB-CONTEXT-MARK" in job_prompt and str(project) in job_prompt
    assert "JOB-CONTEXT-MARK" not in system_prompt(llm, "TURN:")
    before, _ran, after = tool_messages(llm)
    # hermes blanks its session variables as a job ends: not the turn's, here.
    expected = f"session={turn['sessionId']} platform=cli\n{home_of(host)}"
    assert json.loads(before)["output"] == json.loads(after)["output"] == expected


def home_of(host: HostClient) -> str:
    return host.request("shell/exec", {"command": ["pwd"]})["stdout"].strip()


def test_a_job_a_turns_cronjob_tool_runs_starts_in_its_workdir_and_its_cd_stays_in_the_job(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    project, job = workdir_job(host, tmp_path, "JOB: where")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "cd sub && pwd"}),
        Reply.tool_call("cronjob", {"action": "run", "job_id": job}),
        Reply.tool_call("terminal", {"command": "pwd; cd /"}),  # the job's agent
        Reply.text(["job done"]),
        Reply.tool_call("terminal", {"command": "pwd"}),
        Reply.text(["ran it"]),
    )
    turn = host.request("run/start", {"message": "TURN: run it", "workspace": str(ws)})
    assert host.wait_run_completed(turn["runId"]).params["status"] == "complete"

    def asked_by_job(body: dict[str, Any]) -> bool:
        users = [m for m in body["messages"] if m.get("role") == "user"]
        return any("JOB: where" in str(m.get("content")) for m in users)

    job_asked = [body for body in llm.requests if asked_by_job(body)]
    [job_ran] = [m["content"] for m in job_asked[-1]["messages"] if m.get("role") == "tool"]
    assert json.loads(job_ran)["output"] == str(project)
    before, _ran, after = tool_messages(llm)
    assert json.loads(before)["output"] == json.loads(after)["output"] == str(ws / "sub")
