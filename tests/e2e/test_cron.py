"""Cron jobs through the real binary and real hermes-agent: a job an agent's
``cronjob`` tool runs now runs within the host's turn, its commands asked about
in that run, and it never leaves the worker's other sessions unasked (hermes
marks its whole process as a cron scheduler once it runs a job)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import received


def cron_job(home: Path, prompt: str) -> str:
    """A job made with hermes' own API in the profile's home; its id."""
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cron.jobs import create_job; "
            f"print(create_job(prompt={prompt!r}, schedule='every 1h', deliver='local')['id'])",
        ],
        env={**os.environ, "HERMES_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return made.stdout.split()[-1]


def asked_or_ended(host: HostClient, run_id: str) -> str:
    return host.wait_for(
        lambda n: (
            n.params.get("runId") == run_id and n.method in ("approval/requested", "run/completed")
        ),
        timeout=60,
    ).method


@pytest.mark.parametrize("cron_mode", ["approve", "deny"])
def test_a_cron_job_run_now_asks_the_host_and_leaves_later_sessions_asked(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path, cron_mode: str
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["approvals"] = {**config.get("approvals", {}), "cron_mode": cron_mode}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    job = cron_job(home, "clean up")
    victim = tmp_path / "victim"
    victim.mkdir()
    llm.enqueue(
        Reply.tool_call("cronjob", {"action": "run", "job_id": job}),
        Reply.tool_call("terminal", {"command": f"rm -rf {victim}"}),  # the job's agent
        Reply.text(["job done"]),
        Reply.text(["ran it"]),
    )
    run = host.request("run/start", {"message": "run my job now"})
    # The job runs within the turn: its command is asked about in this run.
    assert asked_or_ended(host, run["runId"]) == "approval/requested"
    [ask] = received(host, "approval/requested")
    assert ask.params["command"] == f"rm -rf {victim}"
    host.request(
        "approval/respond",
        {"runId": run["runId"], "approvalId": ask.params["approvalId"], "decision": "deny"},
    )
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert victim.exists()
    assert (home / "cron" / "output" / job).is_dir()  # it did run

    # hermes left its process marked as a cron scheduler; another session is still
    # asked before its code runs, neither approved nor refused by cron_mode.
    marker = tmp_path / "ran.txt"
    code = f"open({str(marker)!r}, 'w').write('ran')"
    llm.enqueue(Reply.tool_call("execute_code", {"code": code}), Reply.text(["done"]))
    other = host.request("run/start", {"message": "run some code"})
    assert asked_or_ended(host, other["runId"]) == "approval/requested"
    [*_, code_ask] = received(host, "approval/requested")
    host.request(
        "approval/respond",
        {"runId": other["runId"], "approvalId": code_ask.params["approvalId"], "decision": "once"},
    )
    host.wait_run_completed(other["runId"])
    assert marker.read_text() == "ran"
