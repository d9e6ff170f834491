"""A worker that stops reading its stdin (stopped, or stuck holding the interpreter
lock) costs the supervisor bounded memory, and never stalls it or another profile."""

from __future__ import annotations

import os
import queue
import signal
import threading
import time
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.transport.process import is_stopped
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, wait_gone, worker_pids

SID = "sess-stalled"
MIB = 1 << 20
READS_NOTHING = "reads nothing"


def stopped_work_worker(host: HostClient, llm: ScriptedLLM) -> int:
    """Run a turn on the work profile (so SID is stored there), then SIGSTOP its worker."""
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"sessionId": SID, "message": "hi", "profile": "work"})
    host.wait_run_completed(run["runId"])
    pid = worker_pids(host)[("work", None)]
    os.kill(pid, signal.SIGSTOP)
    assert wait_stopped(pid, 10.0), f"worker {pid} did not stop"
    return pid


def wait_stopped(pid: int, timeout: float) -> bool:
    """True once the kernel shows ``pid`` stopped. A signal stops its target only when
    that runs next, and nothing but a parent's waitpid reports it (the worker is the
    supervisor's or the template's child), so this looks at /proc, bounded."""
    deadline = time.monotonic() + timeout
    while not is_stopped(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def send_renames(host: HostClient, count: int) -> list[Any]:
    """Send ``count`` renames of about 1 MiB each; their ids. From a thread: were the
    supervisor to block on the stopped worker's pipe, so would this write, and the
    test fails at a bounded wait rather than hanging."""
    title = "t" * MIB
    sent: queue.Queue[list[Any]] = queue.Queue()

    def send() -> None:
        params = {"sessionId": SID, "title": title}
        sent.put([host.send_request("session/rename", params) for _ in range(count)])

    threading.Thread(target=send, daemon=True).start()
    return sent.get(timeout=30)


def test_requests_for_a_worker_that_stops_reading_are_refused_past_64_mib_while_others_run(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host  # a spawned worker's stdin is a Popen's, a forked one's the template's
    pid = stopped_work_worker(host, llm)
    try:
        ids = send_renames(host, 80)
        # Its pipe holds 64 KiB: about 65 of them wait in the supervisor, the rest are
        # refused at once, not kept.
        for msg_id in ids[70:]:
            refused = host.response(msg_id, timeout=10)
            assert refused.error is not None
            assert refused.error["code"] == ErrorType.WORKER_OVERLOADED.code
            assert refused.error["data"] == {"type": "worker_overloaded", "profile": "work"}
        # The supervisor answers, and another profile's worker runs, meanwhile.
        assert host.request("supervisor/status", timeout=10)["pid"] == host.proc.pid
        llm.enqueue(Reply.text(["unaffected"]))
        other = host.request("run/start", {"message": "hi"}, timeout=30)
        assert host.wait_run_completed(other["runId"]).params["status"] == "complete"
    finally:
        os.kill(pid, signal.SIGCONT)
    # Once it reads again, every request that waited reaches it and is answered once.
    waited = [host.response(msg_id, timeout=60) for msg_id in ids[:60]]
    for answer in waited:
        codes = {ErrorType.WORKER_OVERLOADED.code, ErrorType.WORKER_TIMEOUT.code}
        assert answer.error is None or answer.error["code"] not in codes, answer
    assert host.request("session/status", {"sessionId": SID})["loaded"] is True
    assert worker_pids(host)[("work", None)] == pid  # the same worker, not a new one


def test_a_host_that_leaves_while_a_worker_is_stopped_sees_the_supervisor_and_worker_exit(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    host.initialize()
    pid = stopped_work_worker(host, llm)
    try:
        send_renames(host, 3)  # more than its pipe holds: a write to it would block
        assert host.proc.stdin is not None
        host.proc.stdin.close()
        # It never takes worker/shutdown off its pipe: no waiting for an answer.
        host.wait_stderr(lambda line: READS_NOTHING in line and f"pid {pid} " in line)
        exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
        assert exited.params["pid"] == pid
        assert exited.params["signal"] == "SIGTERM"  # continued, so not left to SIGKILL
        assert host.proc.wait(timeout=40) is not None
        assert wait_gone(pid, 10)
    finally:
        if not wait_gone(pid, 0):
            os.kill(pid, signal.SIGCONT)


def test_restarting_a_worker_that_reads_nothing_sigterms_it_without_waiting_for_shutdown(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    pid = stopped_work_worker(host, llm)
    try:
        ids = send_renames(host, 3)
        restarted = host.request("worker/restart", {"profile": "work"}, timeout=60)
        host.wait_stderr(lambda line: READS_NOTHING in line and f"pid {pid} " in line)
    finally:
        if not wait_gone(pid, 0):
            os.kill(pid, signal.SIGCONT)
    assert restarted["worker"]["pid"] not in (None, pid)
    assert restarted["worker"]["state"] == "ready"
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params == {
        "profile": "work",
        "workerKey": None,
        "pid": pid,
        "exitCode": None,
        "signal": "SIGTERM",
        "expected": True,
        "reason": "restart",
    }
    for msg_id in ids:  # what waited for it is answered once, by the stop
        failed = host.response(msg_id, timeout=10)
        assert failed.error is not None
        assert failed.error["code"] == ErrorType.WORKER_UNAVAILABLE.code


def test_restarting_a_stopped_worker_with_nothing_waiting_for_it_sigterms_it_at_once(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    pid = stopped_work_worker(host, llm)  # its pipe is empty: only the stop tells
    try:
        restarted = host.request("worker/restart", {"profile": "work"}, timeout=60)
        host.wait_stderr(lambda line: f"pid {pid} reads nothing (it is stopped)" in line)
    finally:
        if not wait_gone(pid, 0):
            os.kill(pid, signal.SIGCONT)
    assert restarted["worker"]["pid"] not in (None, pid)
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert (exited.params["pid"], exited.params["signal"]) == (pid, "SIGTERM")
    assert exited.params["reason"] == "restart"
    # Its session resumes in the new worker, from the database.
    history = host.request("session/history", {"sessionId": SID, "profile": "work"})
    assert [m["content"] for m in history["messages"]] == ["hi", "ok"]
