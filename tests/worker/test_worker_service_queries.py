"""WorkerService queries off the reader thread: commands, MCP, processes, the job queues."""

from __future__ import annotations

import threading

import pytest
from worker_service_helpers import WAIT, error_of

from hermes_stdio.protocol.toolbox import McpServerInfo
from hermes_stdio.wire import ErrorType, Notification, Request
from hermes_stdio.worker.contract import AgentUnavailable


def test_command_list_answers_the_adapters_commands_off_the_reader_thread(harness):
    listed = [{"name": "/alpha", "description": "A.", "kind": "skill"}]
    harness.adapter.list_commands = lambda: listed
    assert harness.call("command/list", {})["result"] == {"commands": listed}

    def missing():
        raise AgentUnavailable("cannot import hermes-agent")

    harness.adapter.list_commands = missing
    assert error_of(harness.call("command/list", {})) is ErrorType.AGENT_UNAVAILABLE


def test_slow_queries_run_a_few_at_a_time_and_a_cancel_skips_one_not_started(harness):
    release, entered = threading.Event(), threading.Semaphore(0)
    scanned: list[str] = []

    def slow_scan():
        scanned.append(threading.current_thread().name)
        entered.release()
        assert release.wait(WAIT)
        return []

    harness.adapter.list_commands = slow_scan
    size = harness.service.jobs.size
    service, peer = harness.service, harness.peer
    for msg_id in range(1, size + 3):  # the queue's threads busy, and two more waiting
        service.on_request(peer, Request(msg_id, "command/list", {}))
    for _ in range(size):
        assert entered.acquire(timeout=WAIT)
    assert service.jobs.waiting == 2
    assert scanned == ["query:commands"] * size
    service.on_notification(peer, Notification("$/cancelRequest", {"id": size + 1}), b"")
    service.on_notification(peer, Notification("$/cancelRequest", {"id": 1}), b"")  # started
    service.on_notification(peer, Notification("$/cancelRequest", {"nope": 1}), b"")  # logged
    assert (
        error_of(peer.wait_for(lambda log: next((m for m in log if m.get("id") == size + 1), None)))
        is ErrorType.REQUEST_CANCELLED
    )
    release.set()
    answers = [
        peer.wait_for(lambda log, i=i: next((m for m in log if m.get("id") == i), None))
        for i in range(1, size + 3)
    ]
    assert [a.get("result") for a in answers] == [{"commands": []}] * size + [
        None,
        {"commands": []},
    ]
    assert len(scanned) == size + 1  # the cancelled one never scanned
    assert len([m for m in peer.snapshot() if "id" in m]) == size + 2  # one answer each


def test_an_agent_without_a_process_registry_has_no_background_processes(harness):
    assert harness.call("process/list", {"sessionId": "s"})["result"] == {"processes": []}
    kill = harness.call("process/kill", {"sessionId": "s", "processId": "proc_1"})
    assert kill["result"] == {"killed": False}


def test_mcp_status_answers_the_adapters_servers_off_the_reader_thread(harness):
    assert harness.call("mcp/status", {})["result"] == {"servers": []}
    echo = McpServerInfo("echo", "stdio", "failed", 0, "spawn failed", "oauth", False)
    harness.adapter.mcp_status = lambda: [echo]
    assert harness.call("mcp/status", {})["result"] == {
        "servers": [
            {
                "name": "echo",
                "transport": "stdio",
                "status": "failed",
                "tools": 0,
                "error": "spawn failed",
                "auth": "oauth",
                "signedIn": False,
            }
        ]
    }


def test_queries_that_may_wait_outside_the_worker_are_queued_slow_and_store_reads_quick(
    harness, monkeypatch: pytest.MonkeyPatch
):
    kinds: dict[str, bool] = {}
    submit = harness.service.jobs.submit

    def spy(key, job, on_cancel=None, label="", *, slow=False):
        kinds[label] = slow
        submit(key, job, on_cancel, label, slow=slow)

    monkeypatch.setattr(harness.service.jobs, "submit", spy)
    slow = {
        "model/list": {},
        "mcp/status": {},
        "tool/list": {},
        "session/estimateContext": {"sessionId": "sess_q"},
        "checkpoint/list": {"directory": "/"},
    }
    quick = {
        "session/history": {"sessionId": "sess_q"},
        "session/listStored": {},
        "session/rename": {"sessionId": "sess_q", "title": "t"},
        "command/list": {},
        "process/list": {"sessionId": "sess_q"},
    }
    for method, params in {**slow, **quick}.items():
        harness.call(method, params)  # answered: a result or an error, either way once
    labels = {"model/list": "models", "mcp/status": "mcp-status", "tool/list": "tools"}
    labels |= {"session/estimateContext": "estimate", "checkpoint/list": "checkpoints"}
    labels |= {"session/history": "history", "session/listStored": "stored-sessions"}
    labels |= {"session/rename": "rename", "command/list": "commands"}
    labels |= {"process/list": "processes"}
    assert kinds == {labels[m]: m in slow for m in labels}
