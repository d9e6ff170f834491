"""Runs through the real binary: requests cancelled or answered while their worker starts."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification

from .conftest import run_to_end


def test_a_run_start_cancelled_while_its_worker_starts_is_answered_request_cancelled_and_never_runs(
    host: HostClient, llm: ScriptedLLM
) -> None:
    msg_id = host.send_request("run/start", {"message": "cancel me"})  # cold worker: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    # Answered, so the id is free again at once, though the worker still starts.
    reused = host.send_request("supervisor/status", msg_id=msg_id)
    assert reused == msg_id and host.response(msg_id).result["pid"] == host.proc.pid
    assert_only_the_next_run_ran(host, llm)
    with pytest.raises(TimeoutError):
        host.response(msg_id, timeout=0.5)  # the cancelled request is never answered again


def test_a_session_named_by_a_run_start_cancelled_while_its_worker_starts_is_free_again(
    host: HostClient, llm: ScriptedLLM
) -> None:
    start = {"sessionId": "sess-claimed", "profile": "work", "message": "cancel me"}
    msg_id = host.send_request("run/start", start)  # work's worker is cold: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    assert host.response(msg_id).error["code"] == ErrorType.REQUEST_CANCELLED.code
    # Waits behind the cancelled one for work's worker: answered once it was dropped.
    host.request("session/status", {"sessionId": "other", "profile": "work"}, timeout=60)
    # The session went with no worker, so another profile may start it.
    llm.enqueue(Reply.text(["mine"]))
    _run, notes = run_to_end(host, {"sessionId": "sess-claimed", "message": "default's now"})
    assert notes[-1].params["status"] == "complete"
    assert host.request("session/status", {"sessionId": "sess-claimed"})["profile"] == "default"


def assert_only_the_next_run_ran(host: HostClient, llm: ScriptedLLM) -> None:
    """A run/start sent after cancelled ones (it waits behind them for the same worker)
    is the only run that starts, and the only turn the model is asked for."""
    llm.enqueue(Reply.text(["after"]))
    run, notes = run_to_end(host, {"message": "the next one"})
    assert notes[-1].params["status"] == "complete"
    received = [m for _, m in host.received if isinstance(m, Notification) and m.params]
    runs = {n.params["runId"] for n in received if "runId" in n.params}
    assert runs == {run["runId"]}
    asked = [m["content"] for r in llm.requests for m in r["messages"] if m["role"] == "user"]
    assert asked == ["the next one"]


@pytest.mark.parametrize("msg_id", [2**63, "\ud800"], ids=["huge", "lone-surrogate"])
def test_a_request_sent_with_any_id_can_be_cancelled(
    host: HostClient, llm: ScriptedLLM, msg_id: Any
) -> None:
    host.send_request("run/start", {"message": "cancel me"}, msg_id=msg_id)  # cold: pending
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    assert_only_the_next_run_ran(host, llm)


def test_supervisor_status_is_answered_while_a_worker_is_still_starting(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    start_id = host.send_request("run/start", {"message": "hi", "profile": "work"})  # cold worker
    status_id = host.send_request("supervisor/status", {})
    status = host.response(status_id)
    (worker,) = status.result["workers"]
    assert worker["state"] == "starting"
    run = host.response(start_id).result
    host.wait_run_completed(run["runId"])
    order = [m.id for _, m in host.received if getattr(m, "id", None) in (start_id, status_id)]
    assert order == [status_id, start_id]
