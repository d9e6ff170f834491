"""cron/tick and the cron schedule through the real binary and real hermes-agent: a
profile's due jobs are fired as hermes' gateway fires them (claimed under its tick
lock, once), each as a run of the worker's own whose run/started names the job,
whether the host asks for the tick or the supervisor's schedule
(``options.scheduleCron``) does it at the job's time."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.testing.replies import Gate

from .conftest import StartHost, received, worker_pids
from .test_cron import cron_job, deny_asked, interrupted_while_held


def due_in(home: Path, job_id: str, seconds: float) -> None:
    """Set the job's next run ``seconds`` from now (negative: it is overdue), with
    hermes' own store under its lock."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import datetime, sys\n"
            "from cron.jobs import _jobs_lock, load_jobs, save_jobs\n"
            "from hermes_time import now\n"
            "with _jobs_lock():\n"
            "    jobs = load_jobs()\n"
            "    [job] = [j for j in jobs if j['id'] == sys.argv[1]]\n"
            "    when = now() + datetime.timedelta(seconds=float(sys.argv[2]))\n"
            "    job['next_run_at'] = when.isoformat()\n"
            "    save_jobs(jobs)\n",
            job_id,
            str(seconds),
        ],
        env={**os.environ, "HERMES_HOME": str(home)},
        capture_output=True,
        timeout=60,
        check=True,
    )


def next_run(host: HostClient, job_id: str) -> datetime:
    [job] = [j for j in host.request("cron/list", {})["jobs"] if j["jobId"] == job_id]
    return datetime.fromisoformat(job["nextRunAt"])


def test_a_tick_fires_only_the_due_job_as_a_run_that_names_it_and_moves_it_on(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    due, later = cron_job(home, "clean up"), cron_job(home, "not yet")
    due_in(home, due, -60)
    victim = tmp_path / "victim"
    victim.mkdir()
    llm.enqueue(
        Reply.tool_call("terminal", {"command": f"rm -rf {victim}"}),
        Reply.text(["job done"]),
    )
    ticked = host.request("cron/tick", {})
    assert ticked["busy"] is False
    [run] = ticked["runs"]
    assert set(run) == {"jobId", "runId", "sessionId"} and run["jobId"] == due
    deny_asked(host, run["runId"], f"rm -rf {victim}")  # asked in the job's run
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "job done")
    assert victim.exists()

    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[0].method == "run/started"
    assert notes[0].params["sessionId"] == run["sessionId"]
    assert notes[0].params["trigger"] == {"type": "cron", "sourceId": due, "message": "clean up"}
    [listed] = [j for j in host.request("cron/list", {})["jobs"] if j["jobId"] == due]
    assert listed["lastStatus"] == "ok"
    assert next_run(host, due) > datetime.now().astimezone()  # hermes moved it on
    assert host.request("cron/tick", {}) == {"busy": False, "runs": []}  # fired once
    assert next_run(host, later) > datetime.now().astimezone()  # never due, never fired
    assert len(received(host, "run/started")) == 1


def test_while_another_scheduler_holds_hermes_tick_lock_a_tick_fires_nothing(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "report")
    due_in(home, job, -60)
    lock = home / "cron" / ".tick.lock"
    with open(lock, "w") as held:  # as hermes' gateway holds it while it ticks
        fcntl.flock(held, fcntl.LOCK_EX)
        assert host.request("cron/tick", {}) == {"busy": True, "runs": []}
    llm.enqueue(Reply.text(["reported"]))
    [run] = host.request("cron/tick", {})["runs"]  # the lock is free: it is still due
    assert run["jobId"] == job
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "reported")


def test_with_schedule_cron_the_supervisor_fires_jobs_overdue_at_start_and_as_they_come_due(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    overdue, soon = cron_job(home, "overdue one"), cron_job(home, "soon one")
    due_in(home, overdue, -60)
    llm.enqueue(Reply.text(["first"]), Reply.text(["second"]))
    host = start_host()
    host.request(
        "initialize",
        {"protocolVersion": 1, "clientInfo": {"name": "tests"}, "options": {"scheduleCron": True}},
    )
    host.notify("initialized")

    def fired(job_id: str, timeout: float = 60) -> dict[str, object]:
        started = host.wait_for(
            lambda n: n.method == "run/started" and n.params["trigger"]["sourceId"] == job_id,
            timeout=timeout,
        )
        assert started.params["trigger"]["type"] == "cron"
        return host.wait_run_completed(started.params["runId"], timeout=60).params

    assert fired(overdue)["status"] == "complete"  # no host request asked for it
    due_in(home, soon, 2)  # a change the schedule sees: it fires at that time,
    # well before the 60 s after the first tick when it would read the files anyway
    assert fired(soon, timeout=30)["status"] == "complete"
    answers = {n.params["result"]["finalResponse"] for n in received(host, "run/completed")}
    assert answers == {"first", "second"}
    assert len(received(host, "run/started")) == 2


def test_without_schedule_cron_an_overdue_job_waits_for_the_hosts_tick(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    job = cron_job(home, "waits")
    due_in(home, job, -60)
    assert host.request("cron/list", {})["jobs"]  # its worker is up: it could have fired
    llm.enqueue(Reply.text(["now"]))
    [run] = host.request("cron/tick", {})["runs"]  # nothing took it first
    assert run["jobId"] == job
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_job_fired_for_its_last_time_completes_though_hermes_removes_it(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    made = host.request("cron/create", {"schedule": "every 1h", "prompt": "once", "repeat": 1})
    job = made["job"]["jobId"]
    due_in(home, job, -60)
    llm.enqueue(Reply.text(["last time"]))
    [run] = host.request("cron/tick", {})["runs"]
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "last time")
    assert host.request("cron/list", {})["jobs"] == []  # its repeat is done: hermes removed it


def test_a_ticked_jobs_run_is_interrupted_by_run_interrupt_and_ends_once_if_its_worker_dies(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    first, second = cron_job(home, "think"), cron_job(home, "think more")
    due_in(home, first, -60)
    held = Gate()
    llm.enqueue(Reply.text(["never sent"], gate=held))
    [run] = host.request("cron/tick", {})["runs"]
    assert interrupted_while_held(host, run["runId"], held)["status"] == "interrupted"

    due_in(home, second, -60)
    again = Gate()
    llm.enqueue(Reply.text(["never sent"], gate=again))
    [run] = host.request("cron/tick", {})["runs"]
    assert again.arrived.wait(30)
    try:
        os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
        done = host.wait_run_completed(run["runId"], timeout=30).params
    finally:
        again.release.set()
    assert (done["status"], done["error"]["type"]) == ("error", RunErrorType.WORKER_CRASHED)
    notes = host.run_notifications(run["runId"])
    assert [n.method for n in notes].count("run/completed") == 1


def test_a_fired_jobs_edits_are_named_from_its_workdir(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    made = {"schedule": "every 1h", "prompt": "write it", "workdir": str(project)}
    job = host.request("cron/create", made)["job"]["jobId"]
    due_in(home, job, -60)
    write = Reply.tool_call("write_file", {"path": "rel.txt", "content": "job\n"})
    llm.enqueue(write, Reply.text(["job done"]))
    [run] = host.request("cron/tick", {})["runs"]
    host.wait_run_completed(run["runId"])
    [edits] = [
        n.params["event"]["edits"]
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event" and n.params["event"]["type"] == "tool.completed"
    ]
    assert edits == [
        {
            "path": str(project / "rel.txt"),
            "kind": "added",
            "diff": "--- /dev/null\n+++ b/rel.txt\n@@ -0,0 +1 @@\n+job\n",
        }
    ]
