"""Worker processes through the real binary: crashes, kills, restarts and what they hit."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError, encode_frame, encode_request

from .conftest import StartHost, run_in_a_long_tool, started_worker, wait_gone, worker_pids


def test_killing_a_worker_mid_run_completes_the_run_with_worker_crashed_and_the_next_run_works(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    llm.enqueue(Reply.text([f"t{i} " for i in range(100)], delay=0.1))
    run = host.request("run/start", {"message": "long"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == run["runId"])
    pid = worker_pids(host)[("default", None)]
    os.kill(pid, signal.SIGKILL)
    done = host.wait_run_completed(run["runId"], timeout=20)
    assert done.params["status"] == "error"
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert [n.method for n in notes].count("run/completed") == 1
    exited = host.wait_for(lambda n: n.method == "worker/exited")
    assert exited.params == {
        "profile": "default",
        "workerKey": None,
        "pid": pid,
        "exitCode": None,
        "signal": "SIGKILL",
        "expected": False,
        "reason": "crashed",
    }
    result = host.request("run/result", {"runId": run["runId"]})
    assert result["status"] == "error" and result["error"]["type"] == RunErrorType.WORKER_CRASHED
    # The session died with its worker; the next request gets a fresh worker.
    assert (
        host.request("session/status", {"sessionId": run["sessionId"], "ifLoaded": True})["loaded"]
        is False
    )
    llm.clear()
    llm.enqueue(Reply.text(["back"]))
    again = host.request("run/start", {"message": "again"})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"
    status = host.request("supervisor/status")
    (worker,) = [w for w in status["workers"] if w["profile"] == "default"]
    assert worker["pid"] != pid and worker["restarts"] == 1 and worker["state"] == "ready"


def test_a_crash_looping_worker_backs_off_until_worker_restart(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    host.initialize()
    for _ in range(5):
        llm.enqueue(Reply.text(["x"] * 30, delay=0.1))
        run = host.request("run/start", {"message": "crash", "profile": "play"})
        host.wait_for(lambda n, r=run: n.method == "run/delta" and n.params["runId"] == r["runId"])
        os.kill(worker_pids(host)[("play", None)], signal.SIGKILL)
        host.wait_run_completed(run["runId"], timeout=20)
        host.wait_for(lambda n: n.method == "worker/exited")
        llm.clear()
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "again", "profile": "play"})
    assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
    (worker,) = [w for w in host.request("supervisor/status")["workers"] if w["profile"] == "play"]
    assert worker["state"] == "backoff" and worker["restarts"] == 5
    restarted = host.request("worker/restart", {"profile": "play"})
    assert restarted["worker"]["state"] == "ready" and restarted["worker"]["pid"]
    llm.enqueue(Reply.text(["fine"]))
    run = host.request("run/start", {"message": "again", "profile": "play"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_run_that_ended_before_its_worker_restarted_is_still_known_as_finished(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, _pids = run_in_a_long_tool(host, llm, tmp_path)
    host.request("worker/restart", {"profile": "default"})  # ends the run
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["error"]["type"]) == ("error", RunErrorType.WORKER_STOPPED)
    target = {"runId": run["runId"]}
    assert host.request("run/interrupt", target) == {"interrupted": False}
    assert host.request("run/steer", {**target, "text": "more"}) == {"accepted": False}
    with pytest.raises(RpcError) as err:
        host.request("approval/respond", {**target, "approvalId": "appr_x", "decision": "once"})
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL


def test_a_request_pending_in_a_worker_that_dies_fails_with_worker_crashed(
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = any_host
    run, tool_pids = run_in_a_long_tool(host, llm, tmp_path)
    # destroy answers only after the run's tool was interrupted (about a second).
    pending = host.send_request("session/destroy", {"sessionId": run["sessionId"]})
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    resp = host.response(pending)
    assert resp.error is not None
    assert resp.error["code"] == ErrorType.WORKER_CRASHED.code
    assert resp.error["data"]["type"] == ErrorType.WORKER_CRASHED.type
    done = host.wait_run_completed(run["runId"])
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    host.wait_for(lambda n: n.method == "worker/exited")
    # The killed worker's tool command (in a session of its own) does not outlive it.
    assert all(wait_gone(pid, 10) for pid in tool_pids)


def test_a_session_continues_from_its_stored_history_after_its_worker_was_killed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Noted: zebra."]))
    first = host.request("run/start", {"message": "Remember the word zebra."})
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    pid = worker_pids(host)[("default", None)]
    os.kill(pid, signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited" and n.params["pid"] == pid)

    llm.clear()
    llm.enqueue(Reply.text(["It was zebra."]))
    again = host.request("run/start", {"message": "Which word?", "sessionId": first["sessionId"]})
    done = host.wait_run_completed(again["runId"])
    assert done.params["status"] == "complete"
    assert done.params["result"]["messageCount"] == 4
    sent = [(m["role"], m.get("content")) for m in llm.requests[0]["messages"]]
    assert ("user", "Remember the word zebra.") in sent
    assert ("assistant", "Noted: zebra.") in sent
    assert sent[-1] == ("user", "Which word?")
    # A new id the database does not know starts empty, as before.
    llm.enqueue(Reply.text(["hi"]))
    fresh = host.request("run/start", {"message": "hi", "sessionId": "sess-never-seen"})
    assert host.wait_run_completed(fresh["runId"]).params["result"]["messageCount"] == 2


def test_another_profiles_session_resumes_by_its_id_alone_after_a_crash_and_a_restart(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Noted: zebra."]))
    first = host.request("run/start", {"message": "Remember zebra.", "profile": "work"})
    sid = first["sessionId"]
    host.wait_run_completed(first["runId"])
    pid = worker_pids(host)[("work", None)]
    os.kill(pid, signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited" and n.params["pid"] == pid)

    # Named alone, it reaches work's database again: not a new session under default.
    llm.enqueue(Reply.text(["It was zebra."]))
    again = host.request("run/start", {"message": "Which word?", "sessionId": sid})
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 4
    assert ("default", None) not in worker_pids(host)

    host.request("worker/restart", {"profile": "work"})
    llm.enqueue(Reply.text(["Still zebra."]))
    third = host.request("run/start", {"message": "And now?", "sessionId": sid})
    done = host.wait_run_completed(third["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 6
    with pytest.raises(RpcError) as caught:
        host.request("run/start", {"message": "moved?", "sessionId": sid, "profile": "default"})
    assert caught.value.kind is ErrorType.INVALID_PARAMS


def test_a_run_started_while_a_wedged_worker_restarts_runs_in_the_new_worker_and_ends_once(
    host: HostClient, llm: ScriptedLLM
) -> None:
    old = started_worker(host, llm)
    llm.enqueue(Reply.text([f"a{i} " for i in range(100)], delay=0.1))
    first = host.request("run/start", {"message": "A"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == first["runId"])
    os.kill(old, signal.SIGSTOP)  # deaf to worker/shutdown: the stop escalates to SIGKILL
    restart = host.send_request("worker/restart", {"profile": "default"})
    # The restart has begun stopping it. (Its "stopping" state can be too brief to
    # poll for: a stopped worker gets SIGTERM with SIGCONT at once.)
    host.wait_stderr(lambda line: f"pid {old} reads nothing (it is stopped)" in line)
    llm.enqueue(Reply.text([f"b{i} " for i in range(20)]))
    second = host.request("run/start", {"message": "B"}, timeout=60)  # waits for the stop
    assert host.response(restart, 60).error is None
    a_done = host.wait_run_completed(first["runId"], timeout=30).params
    assert a_done["error"]["type"] == RunErrorType.WORKER_STOPPED
    assert host.wait_run_completed(second["runId"], timeout=30).params["status"] == "complete"
    notes = host.run_notifications(second["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert [n.method for n in notes].count("run/completed") == 1
    assert notes[-1].method == "run/completed"
    [exited] = [m for _, m in host.received if getattr(m, "method", "") == "worker/exited"]
    assert exited.params["pid"] == old and exited.params["expected"] is True
    assert exited.params["reason"] == "restart"
    assert worker_pids(host)[("default", None)] != old


def test_a_burst_of_restarts_for_one_worker_costs_at_most_two_restarts_and_each_is_answered(
    host: HostClient, llm: ScriptedLLM
) -> None:
    old = started_worker(host, llm, "play")
    ids = [f"restart-{i}" for i in range(10)]
    params = {"profile": "play"}
    # In one write, so all ten arrive while the first restart is still stopping the worker.
    host.write_raw(b"".join(encode_frame(encode_request(i, "worker/restart", params)) for i in ids))
    answers = [host.response(i, timeout=60) for i in ids]
    assert [a.error for a in answers] == [None] * 10
    pids = {a.result["worker"]["pid"] for a in answers}
    current = worker_pids(host)[("play", None)]
    # The first restart's group, and at most one formed while it was starting the new one.
    assert current in pids and old not in pids and len(pids) <= 2
    exits = [
        msg
        for _, msg in list(host.received)
        if isinstance(msg, Notification)
        and msg.method == "worker/exited"
        and msg.params["profile"] == "play"
    ]
    assert [n.params["reason"] for n in exits] in (["restart"], ["restart", "restart"])
    assert exits[0].params["pid"] == old


@pytest.mark.parametrize("mode", ["spawned", "forked"])
def test_a_worker_that_crashes_in_c_code_leaves_each_threads_stack_in_the_log(
    start_host: StartHost, llm: ScriptedLLM, mode: str
) -> None:
    host = start_host(*(["--no-worker-template"] if mode == "spawned" else []))
    host.initialize()
    pid = started_worker(host, llm)
    os.kill(pid, signal.SIGSEGV)  # as a segfault in a C extension would
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30).params
    assert (exited["signal"], exited["expected"]) == ("SIGSEGV", False)
    host.wait_stderr(lambda line: "Fatal Python error: Segmentation fault" in line, timeout=10)
    host.wait_stderr(lambda line: "Thread 0x" in line or "Current thread" in line, timeout=10)
