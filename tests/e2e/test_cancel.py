"""Requests a host cancels after they reached a worker, and floods of slow ones."""

from __future__ import annotations

import os

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, assert_runs_ended_once_in_order

SID = "sess-cancel"


def test_a_flood_of_slow_queries_waits_in_the_workers_queue_and_cancels_skip_what_has_not_started(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["stored"]))
    run = host.request("run/start", {"sessionId": SID, "message": "keep me"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    [pid] = [w["pid"] for w in host.request("supervisor/status")["workers"]]
    # model/list costs hermes tens of milliseconds of CPU each: 200 take seconds.
    flood = [host.send_request("model/list", {}) for _ in range(200)]
    rename = host.send_request("session/rename", {"sessionId": SID, "title": "never applied"})
    host.notify("$/cancelRequest", {"id": rename})
    # Answered on the worker's reader, after it read every request before it.
    assert host.request("session/status", {"sessionId": SID})["loaded"] is True
    threads = len(os.listdir(f"/proc/{pid}/task"))
    assert threads < 20, f"{threads} worker threads for 200 waiting queries"
    for msg_id in flood:
        host.notify("$/cancelRequest", {"id": msg_id})
    answers = [host.response(i, timeout=30) for i in [*flood, rename]]
    codes = [None if a.error is None else a.error["code"] for a in answers]
    assert set(codes) <= {None, ErrorType.REQUEST_CANCELLED.code}
    assert codes[-1] == ErrorType.REQUEST_CANCELLED.code
    # Behind whatever the worker still had queued, so the cancelled rename was
    # skipped or done by the time this is answered.
    assert host.request("model/list", {}, timeout=60)["model"] == "test-model"
    listed = host.request("session/listStored", {})["sessions"]
    assert [(s["sessionId"], s["title"]) for s in listed] == [(SID, None)]
    # Every late answer the worker sent for a cancelled request was expected.
    assert not [line for line in host.stderr_lines if "unknown id" in line]


def test_a_run_start_cancelled_after_the_worker_began_it_runs_interrupted_and_ends_once(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--no-worker-template")  # a worker ready before hermes is imported
    host.initialize()
    assert host.request("session/status", {"sessionId": SID}, timeout=60)["loaded"] is False
    llm.enqueue(Reply.text(["never", " read"], delay=0.5))
    # A new session naming a provider: the worker resolves it first, which waits for
    # hermes' import (most of a second); answered on the worker's reader, session/status
    # means the resolution has begun, so the cancel cannot skip it.
    start = {"sessionId": SID, "message": "hi", "provider": "custom", "model": "test-model"}
    msg_id = host.send_request("run/start", start)
    host.request("session/status", {"sessionId": SID})
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    # The worker still started it, unseen by the host but for its notifications: the
    # supervisor interrupts it on the worker's answer, and it ends as any run does.
    done = host.wait_for(lambda n: n.method == "run/completed", timeout=60).params
    assert (done["sessionId"], done["status"]) == (SID, "interrupted")
    assert_runs_ended_once_in_order(host, [done["runId"]])
