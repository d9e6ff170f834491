"""A terminal command's sudo through the real binary and real hermes-agent: the password is
asked of the host (sudo/requested), given to sudo only, cached for the session alone, and
never sent back. A stand-in sudo on PATH wants the password "kiwi-pass"."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError

from .conftest import (
    StartHost,
    asked,
    background_calls,
    delegating,
    received,
    resolutions,
    subagent_ended,
    subagent_runs,
    within_the_turn,
    worker_pids,
)

FAKE_SUDO = Path(__file__).parent / "fixtures" / "fakesudo"
PASSWORD = "kiwi-pass"


def sudo_env(tmp_path: Path) -> dict[str, str]:
    # hermes' terminal runs commands with a login shell's PATH: a home of the test's own
    # puts the stand-in first there.
    home = tmp_path / "user-home"
    home.mkdir()
    (home / ".bash_profile").write_text(f'export PATH="{FAKE_SUDO}:$PATH"\n')
    return {"HOME": str(home), "PATH": f"{FAKE_SUDO}{os.pathsep}{os.environ['PATH']}"}


@pytest.fixture
def host(start_host: StartHost, tmp_path: Path) -> HostClient:
    h = start_host(env=sudo_env(tmp_path))
    h.initialize()
    return h


def sudo_run(host: HostClient, llm: ScriptedLLM, session_id: str, word: str) -> str:
    llm.enqueue(Reply.tool_call("terminal", {"command": f"sudo echo {word}"}), Reply.text(["done"]))
    run = host.request("run/start", {"sessionId": session_id, "message": "use sudo"})
    return str(run["runId"])


def respond(host: HostClient, run_id: str, note: Notification, password: str | None) -> Any:
    params = {"runId": run_id, "sudoId": note.params["sudoId"], "password": password}
    return host.request("sudo/respond", params)


def terminal_output(host: HostClient, run_id: str) -> str:
    for n in host.run_notifications(run_id):
        event = n.params.get("event") or {}
        if event.get("type") == "tool.completed" and event.get("name") == "terminal":
            return str(json.loads(event["result"])["output"])
    raise AssertionError("no terminal tool.completed")


def test_the_hosts_password_reaches_sudo_once_per_session_and_never_comes_back(
    host: HostClient, llm: ScriptedLLM
) -> None:
    run_id = sudo_run(host, llm, "sess-a", "first-ok")
    note = asked(host, run_id, "sudo")
    assert set(note.params) == {"runId", "sessionId", "seq", "sudoId", "timeoutMs"}
    assert note.params["timeoutMs"] == 120_000
    assert respond(host, run_id, note, PASSWORD) == {"outcome": "answered"}
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "complete"
    assert "first-ok" in terminal_output(host, run_id)
    [closed] = resolutions(host, run_id, "sudo")
    assert closed == {
        "runId": run_id,
        "sessionId": "sess-a",
        "seq": closed["seq"],
        "sudoId": note.params["sudoId"],
        "outcome": "answered",
    }
    assert note.params["seq"] < closed["seq"] < done.params["seq"]

    again = sudo_run(host, llm, "sess-a", "second-ok")  # hermes keeps it for the session
    host.wait_run_completed(again)
    assert "second-ok" in terminal_output(host, again)
    assert not [n for n in host.run_notifications(again) if n.method == "sudo/requested"]

    other = sudo_run(host, llm, "sess-b", "other-ok")  # ...and for that session only
    respond(host, other, asked(host, other, "sudo"), None)
    host.wait_run_completed(other)
    assert "other-ok" not in terminal_output(host, other)
    assert [r["outcome"] for r in resolutions(host, other, "sudo")] == ["declined"]

    assert not [f for f in host.raw_frames if PASSWORD.encode() in f]
    assert not [line for line in host.stderr_lines if PASSWORD in line]


def test_a_wrong_password_fails_the_command_and_the_run_goes_on(
    host: HostClient, llm: ScriptedLLM
) -> None:
    run_id = sudo_run(host, llm, "sess-a", "never")
    respond(host, run_id, asked(host, run_id, "sudo"), "wrong")
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "complete"
    assert "incorrect password" in terminal_output(host, run_id)
    assert [r["outcome"] for r in resolutions(host, run_id, "sudo")] == ["answered"]


def test_an_interrupt_cancels_the_request_and_answering_it_is_unknown_sudo(
    host: HostClient, llm: ScriptedLLM
) -> None:
    run_id = sudo_run(host, llm, "sess-a", "never")
    note = asked(host, run_id, "sudo")
    host.request("run/interrupt", {"runId": run_id})
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "interrupted"
    assert [r["outcome"] for r in resolutions(host, run_id, "sudo")] == ["cancelled"]
    with pytest.raises(RpcError) as err:
        respond(host, run_id, note, PASSWORD)
    assert err.value.kind is ErrorType.UNKNOWN_SUDO
    assert err.value.data == {"sudoId": note.params["sudoId"]}


def test_a_request_whose_worker_dies_is_closed_before_the_runs_completion(
    host: HostClient, llm: ScriptedLLM
) -> None:
    run_id = sudo_run(host, llm, "sess-a", "never")
    note = asked(host, run_id, "sudo")
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    done = host.wait_run_completed(run_id)
    assert done.params["error"]["type"] == "worker_crashed"
    [closed] = resolutions(host, run_id, "sudo")
    assert (closed["sudoId"], closed["outcome"]) == (note.params["sudoId"], "cancelled")
    assert closed["seq"] == done.params["seq"] - 1


def delegate_sudo(host: HostClient, llm: ScriptedLLM, session_id: str, marker: Path) -> str:
    """A run whose subagent (run within the turn) makes ``marker`` with sudo."""
    goal = f"make {marker.name}"
    subagent_runs(llm, goal, f"sudo touch {marker}")
    return delegating(host, llm, goal, session_id)


@pytest.mark.parametrize("worker", ["spawned", "forked"])
def test_a_subagent_within_the_turn_asks_in_its_parents_run_and_shares_its_sessions_password(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path, worker: str
) -> None:
    host, held = within_the_turn(start_host, llm, home, worker, env=sudo_env(tmp_path))
    made = tmp_path / "made"
    run_id = delegate_sudo(host, llm, "sess-a", made)
    note = asked(host, run_id, "sudo")
    tried = [  # what the run showed of the subagent's call, before it asked
        n.params["seq"]
        for n in host.run_notifications(run_id)
        if n.method == "run/event"
        and n.params["event"]["type"] == "tool.progress"
        and n.params["event"]["kind"] == "subagent.tool"
        and n.params["event"]["preview"].startswith("sudo touch")
    ]
    assert tried and tried[-1] < note.params["seq"]
    assert respond(host, run_id, note, PASSWORD) == {"outcome": "answered"}
    assert host.wait_run_completed(run_id).params["status"] == "complete"
    assert made.exists()
    assert [r["outcome"] for r in resolutions(host, run_id, "sudo")] == ["answered"]

    again = sudo_run(host, llm, "sess-a", "second-ok")  # the session's own sudo: cached
    host.wait_run_completed(again)
    assert "second-ok" in terminal_output(host, again)
    later = delegate_sudo(host, llm, "sess-a", tmp_path / "later")  # ...as its subagents'
    host.wait_run_completed(later)
    assert (tmp_path / "later").exists()
    for quiet in (again, later):
        assert not [n for n in host.run_notifications(quiet) if n.method == "sudo/requested"]

    other = delegate_sudo(host, llm, "sess-b", tmp_path / "other")  # ...for that session only
    respond(host, other, asked(host, other, "sudo"), None)
    assert host.wait_run_completed(other).params["status"] == "complete"
    assert not (tmp_path / "other").exists()
    assert [r["outcome"] for r in resolutions(host, other, "sudo")] == ["declined"]
    assert not [f for f in host.raw_frames if PASSWORD.encode() in f]
    held.release.set()


def test_interrupting_a_run_whose_subagent_waits_for_a_password_cancels_the_request(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host, held = within_the_turn(start_host, llm, home, env=sudo_env(tmp_path))
    made = tmp_path / "made"
    run_id = delegate_sudo(host, llm, "sess-a", made)
    note = asked(host, run_id, "sudo")
    host.request("run/interrupt", {"runId": run_id})
    assert host.wait_run_completed(run_id).params["status"] == "interrupted"
    assert [r["outcome"] for r in resolutions(host, run_id, "sudo")] == ["cancelled"]
    with pytest.raises(RpcError) as err:
        respond(host, run_id, note, PASSWORD)
    assert err.value.kind is ErrorType.UNKNOWN_SUDO
    assert not made.exists()
    held.release.set()


def test_a_background_subagents_sudo_asks_nobody_and_gets_no_password(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    made = tmp_path / "made"
    subagent_runs(llm, "make it", f"sudo touch {made}")
    run_id = delegating(host, llm, "make it", "sess-a")
    assert host.wait_run_completed(run_id).params["status"] == "complete"
    subagent_ended(host)
    assert [p["preview"] for p in background_calls(host)] == [f"sudo touch {made}"]
    assert received(host, "sudo/requested") == []
    assert not made.exists()


def test_a_deleted_sessions_password_does_not_serve_a_new_conversation_under_its_id(
    host: HostClient, llm: ScriptedLLM
) -> None:
    first = sudo_run(host, llm, "reused", "first-ok")
    respond(host, first, asked(host, first, "sudo"), PASSWORD)
    host.wait_run_completed(first)
    assert "first-ok" in terminal_output(host, first)

    host.request("session/delete", {"sessionId": "reused"})
    again = sudo_run(host, llm, "reused", "second-ok")
    respond(host, again, asked(host, again, "sudo"), None)
    host.wait_run_completed(again)
    assert "second-ok" not in terminal_output(host, again)


def test_a_cron_jobs_sudo_is_asked_in_the_jobs_run(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    from .test_cron import cron_job

    job = cron_job(home, "use sudo")
    llm.enqueue(Reply.tool_call("terminal", {"command": "sudo echo cron-ok"}), Reply.text(["ok"]))
    run = host.request("cron/run", {"jobId": job})
    note = asked(host, run["runId"], "sudo")  # on the thread hermes runs the job's agent on
    assert respond(host, run["runId"], note, PASSWORD) == {"outcome": "answered"}
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "ok")
    assert "cron-ok" in terminal_output(host, run["runId"])
    assert [n.params["outcome"] for n in received(host, "sudo/resolved")] == ["answered"]
