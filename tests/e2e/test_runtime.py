"""A worker whose hermes-agent changes on disk under it fails closed: new work gets
agent_runtime_stale until the host restarts the worker, which then loads the new code.

The change is made to a copy of hermes-agent's ``run_agent`` module placed ahead of
the installed one on PYTHONPATH, so the test never touches the installed package."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import run_agent

from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, overlaid


def test_a_worker_refuses_new_runs_after_hermes_changes_on_disk_until_restarted(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    module = overlaid(tmp_path, run_agent)
    host = start_host(env={"PYTHONPATH": str(module.parent)})
    host.initialize()
    llm.enqueue(Reply.text(["first"]))
    first = host.request("run/start", {"message": "hi"})
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"

    module.write_text(module.read_text() + "\n# upgraded\n")
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"sessionId": first["sessionId"], "message": "again"})
    assert err.value.kind is ErrorType.AGENT_RUNTIME_STALE
    assert err.value.data["profile"] == "default"
    with pytest.raises(RpcError) as err:
        host.request("session/estimateContext", {"sessionId": first["sessionId"]})
    assert err.value.kind is ErrorType.AGENT_RUNTIME_STALE
    # Nothing restarted by itself: the same worker is still there.
    status = host.request("supervisor/status")["workers"][0]
    assert status["state"] == "ready"
    pid = status["pid"]

    restarted = host.request("worker/restart", {})["worker"]
    assert restarted["pid"] != pid
    llm.enqueue(Reply.text(["second"]))
    again = host.request("run/start", {"sessionId": first["sessionId"], "message": "again"})
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["finalResponse"] == "second"
    assert os.path.exists(module)
