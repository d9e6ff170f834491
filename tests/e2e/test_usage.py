"""usage/summary through the real binary and real hermes-agent: what the profile's
sessions used, as hermes' insights count it from its session database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError


def test_a_usage_summary_adds_up_what_the_profiles_runs_used_per_model_source_tool_and_day(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.pricing = {"prompt": "0.000002", "completion": "0.00001"}  # USD per token of test-model
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    first = host.request("run/start", {"message": "go", "source": "vscode"})
    used = host.wait_run_completed(first["runId"]).params["result"]["usage"]
    llm.enqueue(Reply.text(["ok"]))
    other = host.request("run/start", {"message": "unpriced", "model": "unpriced-model"})
    host.wait_run_completed(other["runId"])

    got = host.request("usage/summary")
    totals = got["totals"]
    assert (got["days"], got["source"], totals["sessions"]) == (30, None, 2)
    assert (totals["userMessages"], totals["toolCalls"]) == (2, 1)
    models = {m["model"]: m for m in got["models"]}
    assert set(models) >= {"test-model", "unpriced-model"}
    assert models["test-model"]["costUsd"] == pytest.approx(used["costUsd"], abs=1e-9)
    for field in ("inputTokens", "outputTokens", "cacheReadTokens", "reasoningTokens"):
        assert models["test-model"][field] == used[field], field
    assert (models["test-model"]["apiCalls"], models["test-model"]["toolCalls"]) == (2, 1)
    assert models["unpriced-model"]["costUsd"] is None
    assert totals["costUsd"] == pytest.approx(
        sum(m["costUsd"] for m in got["models"] if m["costUsd"] is not None), abs=1e-9
    )
    assert {s["source"]: s["sessions"] for s in got["sources"]}["vscode"] == 1
    assert sum(s["sessions"] for s in got["sources"]) == 2
    assert {t["tool"]: t["calls"] for t in got["tools"]} == {"terminal": 1}
    today = datetime.now(UTC).date().isoformat()
    assert (len(got["daily"]), got["daily"][-1]["date"]) == (31, today)
    assert got["daily"][-1]["sessions"] == 2 and totals["activeDays"] == 1

    mine = host.request("usage/summary", {"source": "vscode", "days": 1})
    assert (mine["totals"]["sessions"], [m["model"] for m in mine["models"]]) == (1, ["test-model"])
    assert mine["totals"]["apiCalls"] == 2 and mine["totals"]["inputTokens"] == used["inputTokens"]
    assert len(mine["daily"]) == 2  # yesterday (where the period starts) and today
    behind = host.request("usage/summary", {"utcOffsetMinutes": -1440})["daily"]
    assert behind[-1]["date"] == (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    assert behind[-1]["sessions"] == 2

    with pytest.raises(RpcError) as err:
        host.request("usage/summary", {"days": 0})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.days"
    with pytest.raises(RpcError) as err:
        host.request("usage/summary", {"profile": "nobody"})
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE
