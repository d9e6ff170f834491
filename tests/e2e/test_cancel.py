"""Requests a host cancels after they reached a worker, and floods of slow ones."""

from __future__ import annotations

import os

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, assert_runs_ended_once_in_order

SID = "sess-cancel"


def store_one_session(host: HostClient, llm: ScriptedLLM) -> None:
    """Session ``SID`` with one finished turn, and its worker started."""
    llm.enqueue(Reply.text(["stored"]))
    run = host.request("run/start", {"sessionId": SID, "message": "keep me"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_flood_of_slow_queries_waits_in_the_workers_queue_with_few_threads(
    host: HostClient, llm: ScriptedLLM
) -> None:
    store_one_session(host, llm)
    [pid] = [w["pid"] for w in host.request("supervisor/status")["workers"]]
    # model/list costs hermes tens of milliseconds of CPU each: 200 take seconds.
    flood = [host.send_request("model/list", {}) for _ in range(200)]
    # Answered on the worker's reader, after it read every request before it.
    assert host.request("session/status", {"sessionId": SID})["loaded"] is True
    threads = len(os.listdir(f"/proc/{pid}/task"))
    assert threads < 20, f"{threads} worker threads for 200 waiting queries"
    # Its own thread: not behind the flood.
    listed = host.request("session/listStored", {}, timeout=20)["sessions"]
    assert [s["sessionId"] for s in listed] == [SID]
    for msg_id in flood:
        host.notify("$/cancelRequest", {"id": msg_id})
    answers = [host.response(i, timeout=30) for i in flood]
    codes = [None if a.error is None else a.error["code"] for a in answers]
    assert set(codes) <= {None, ErrorType.REQUEST_CANCELLED.code}
    assert host.request("model/list", {}, timeout=60)["model"] == "test-model"
    # Every late answer the worker sent for a cancelled request was expected.
    assert not [line for line in host.stderr_lines if "unknown id" in line]


def test_store_queries_are_answered_while_slow_ones_wait_and_cancelled_waiting_ones_never_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    store_one_session(host, llm)
    before = llm.models_listed  # building the run's agent may list them too
    gate = llm.models_gate = Gate()  # a provider whose model listing hangs
    slow = [host.send_request("model/list", {}) for _ in range(8)]
    assert gate.arrived.wait(20)
    # The slow ones hold at most three of the worker's four query threads. (hermes
    # gives up on a listing after 5 s; everything up to the release takes ms.)
    title = host.request("session/rename", {"sessionId": SID, "title": "renamed"}, timeout=20)
    assert title == {"sessionId": SID, "title": "renamed"}
    history = host.request("session/history", {"sessionId": SID}, timeout=20)
    assert [m["content"] for m in history["messages"]] == ["keep me", "stored"]
    for msg_id in slow:
        host.notify("$/cancelRequest", {"id": msg_id})
    codes = [host.response(i, timeout=10).error["code"] for i in slow]  # type: ignore[index]
    assert codes == [ErrorType.REQUEST_CANCELLED.code] * len(slow)
    # Read after the cancels: the worker has taken the waiting ones out by now.
    assert host.request("session/status", {"sessionId": SID})["loaded"] is True
    gate.release.set()
    assert host.request("model/list", {}, timeout=60)["model"] == "test-model"
    # At most three had started; the rest were skipped, or they would have
    # listed before the last one (each kind starts in order).
    assert 2 <= llm.models_listed - before <= 4, (before, llm.models_listed)
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
