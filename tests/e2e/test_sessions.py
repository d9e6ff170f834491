"""session/history through the real binary and real hermes-agent: a session's messages
from its worker, and from the profile's session database when no worker holds it."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, tool_result, worker_pids


def test_session_history_lists_the_messages_and_reads_them_back_after_a_worker_dies(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["It said hi."]))
    run = host.request("run/start", {"message": "run echo hi"})
    host.wait_run_completed(run["runId"])
    sid = run["sessionId"]
    live = host.request("session/history", {"sessionId": sid})
    assert live["sessionId"] == sid
    roles = [m["role"] for m in live["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert live["messageCount"] == 4
    assert live["messages"][0]["content"] == "run echo hi"
    assert live["messages"][1]["tool_calls"][0]["function"]["name"] == "terminal"
    assert live["messages"][2]["tool_call_id"] == live["messages"][1]["tool_calls"][0]["id"]
    assert live["messages"][-1]["content"] == "It said hi."
    assert not [k for m in live["messages"] for k in m if k.startswith("_")]

    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    stored = host.request("session/history", {"sessionId": sid})
    assert [(m["role"], m.get("content")) for m in stored["messages"]] == [
        (m["role"], m.get("content")) for m in live["messages"]
    ]
    # Reading it did not load it.
    assert host.request("session/status", {"sessionId": sid})["loaded"] is False
    # protocol.md names every key these carry: OpenAI's and the ones hermes keeps.
    documented = {"role", "content", "tool_calls", "tool_call_id", "name"}
    documented |= {"finish_reason", "reasoning", "tool_name", "timestamp"}
    for messages in (live["messages"], stored["messages"]):
        assert {k for m in messages for k in m} <= documented
    assert all(isinstance(m["timestamp"], int | float) for m in stored["messages"])


def test_session_history_pages_back_from_the_newest_messages_live_and_stored(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["One."]), Reply.text(["Two."]), Reply.text(["Three."]))
    sid = "paged"
    for said in ("first", "second", "third"):
        run = host.request("run/start", {"sessionId": sid, "message": said})
        host.wait_run_completed(run["runId"])

    def pages() -> list[tuple[list[object], int, int]]:
        seen, before = [], None
        while before != 0:
            bounds = {"limit": 4} | ({"before": before} if before is not None else {})
            page = host.request("session/history", {"sessionId": sid} | bounds)
            seen.append(
                ([m["content"] for m in page["messages"]], page["firstIndex"], page["messageCount"])
            )
            before = page["firstIndex"]
        return seen

    expected = [
        (["second", "Two.", "third", "Three."], 2, 6),
        (["first", "One."], 0, 6),
    ]
    assert pages() == expected
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert pages() == expected  # read from the database, as the worker held it
    with pytest.raises(RpcError) as err:
        host.request("session/history", {"sessionId": sid, "limit": 0})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.limit"


def test_session_history_of_a_session_nobody_knows_is_unknown_session(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request("session/history", {"sessionId": "sess-never-seen"})
    assert err.value.kind is ErrorType.UNKNOWN_SESSION
    assert err.value.data["sessionId"] == "sess-never-seen"


def test_stored_sessions_are_listed_newest_first_a_page_at_a_time_and_filtered(
    host: HostClient, llm: ScriptedLLM
) -> None:
    ids = []
    for message, source in (
        ("first VSC", "vscode"),
        ("other app", "other"),
        ("second VSC", "vscode"),
    ):
        llm.enqueue(Reply.text(["ok"]))
        run = host.request("run/start", {"message": message, "source": source})
        host.wait_run_completed(run["runId"])
        ids.append(run["sessionId"])
    mine = host.request("session/listStored", {"source": "vscode"})
    assert [s["sessionId"] for s in mine["sessions"]] == [ids[2], ids[0]]
    assert mine["nextOffset"] is None
    newest = mine["sessions"][0]
    assert (newest["source"], newest["messageCount"], newest["model"]) == (
        "vscode",
        2,
        "test-model",
    )
    assert newest["preview"].startswith("second VSC")
    assert newest["lastActiveAt"] >= newest["startedAt"] > 0

    page = host.request("session/listStored", {"limit": 2})
    assert [s["sessionId"] for s in page["sessions"]] == [ids[2], ids[1]]
    assert page["nextOffset"] == 2
    rest = host.request("session/listStored", {"limit": 2, "offset": 2})
    assert [s["sessionId"] for s in rest["sessions"]] == [ids[0]]
    assert rest["nextOffset"] is None

    found = host.request("session/listStored", {"query": ids[1][-8:].upper()})
    assert [s["sessionId"] for s in found["sessions"]] == [ids[1]]
    assert host.request("session/listStored", {"profile": "play"}) == {
        "sessions": [],
        "nextOffset": None,
    }
    with pytest.raises(RpcError) as err:
        host.request("session/listStored", {"limit": 0})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.limit"


def test_a_session_is_titled_after_its_first_exchange_and_the_host_is_told(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    del config["auxiliary"]["title_generation"]  # hermes' default: on
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    llm.enqueue(Reply.text(["Let us plan the kiwi harvest."]), Reply.text(["Kiwi Harvest Plan"]))
    run = host.request("run/start", {"message": "help me plan the kiwi harvest"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    titled = host.wait_for(lambda n: n.method == "session/titled", timeout=60)
    assert titled.params == {"sessionId": sid, "title": "Kiwi Harvest Plan"}
    title_request = json.dumps(llm.requests[-1]["messages"])
    assert "kiwi harvest" in title_request  # hermes asked the model about this exchange
    [listed] = host.request("session/listStored", {})["sessions"]
    assert (listed["sessionId"], listed["title"]) == (sid, "Kiwi Harvest Plan")


def test_stored_sessions_can_be_renamed_and_archived(host: HostClient, llm: ScriptedLLM) -> None:
    ids = []
    for message in ("first", "second"):
        llm.enqueue(Reply.text(["ok"]))
        run = host.request("run/start", {"message": message})
        host.wait_run_completed(run["runId"])
        ids.append(run["sessionId"])
    first, second = ids

    renamed = host.request("session/rename", {"sessionId": first, "title": "  Kiwi plan "})
    assert renamed == {"sessionId": first, "title": "Kiwi plan"}
    titles = {s["sessionId"]: s["title"] for s in host.request("session/listStored")["sessions"]}
    assert titles == {first: "Kiwi plan", second: None}
    with pytest.raises(RpcError) as err:  # titles are unique in a profile
        host.request("session/rename", {"sessionId": second, "title": "Kiwi plan"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.title"
    assert host.request("session/rename", {"sessionId": first, "title": None})["title"] is None

    assert host.request("session/archive", {"sessionId": first, "archived": True}) == {
        "sessionId": first,
        "archived": True,
    }
    listed = host.request("session/listStored")["sessions"]
    assert [s["sessionId"] for s in listed] == [second]
    hidden = host.request("session/listStored", {"archived": True})["sessions"]
    assert [s["sessionId"] for s in hidden] == [first]
    host.request("session/archive", {"sessionId": first, "archived": False})
    assert len(host.request("session/listStored")["sessions"]) == 2

    for method, params in (
        ("session/rename", {"title": "x"}),
        ("session/archive", {"archived": True}),
    ):
        with pytest.raises(RpcError) as err:
            host.request(method, {"sessionId": "sess_nobody", **params})
        assert err.value.kind is ErrorType.UNKNOWN_SESSION


def test_a_stored_session_lists_what_its_turns_used_and_cost_added_up(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.pricing = {"prompt": "0.000002", "completion": "0.00001"}  # USD per token of test-model
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    first = host.request("run/start", {"message": "go"})
    sid = first["sessionId"]
    used = [host.wait_run_completed(first["runId"]).params["result"]["usage"]]
    llm.enqueue(Reply.text(["again"]))
    second = host.request("run/start", {"sessionId": sid, "message": "once more"})
    used.append(host.wait_run_completed(second["runId"]).params["result"]["usage"])
    llm.enqueue(Reply.text(["ok"]))
    other = host.request("run/start", {"message": "unpriced", "model": "unpriced-model"})
    host.wait_run_completed(other["runId"])

    listed = {s["sessionId"]: s["usage"] for s in host.request("session/listStored")["sessions"]}
    mine = listed[sid]
    assert mine["apiCalls"] == 3  # the tool call, its answer, and the second turn's reply
    for field in ("inputTokens", "outputTokens", "cacheReadTokens", "reasoningTokens"):
        assert mine[field] == sum(u[field] for u in used), field
    assert mine["costUsd"] == pytest.approx(sum(u["costUsd"] for u in used), abs=1e-9)
    assert mine["costUsd"] > 0
    assert (listed[other["sessionId"]]["apiCalls"], listed[other["sessionId"]]["costUsd"]) == (
        1,
        None,
    )


def test_a_sessions_workspace_is_stored_listed_filtered_and_kept_by_a_new_worker(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    app, other = tmp_path / "my_app", tmp_path / "myXapp"  # LIKE's _ would match both
    for path in (app, app / "sub", other):
        path.mkdir()
    sids = {}
    for name, workspace in (("app", app), ("sub", app / "sub"), ("other", other), ("none", None)):
        llm.enqueue(Reply.text(["ok"]))
        params = {"message": name} | ({"workspace": str(workspace)} if workspace else {})
        run = host.request("run/start", params)
        host.wait_run_completed(run["runId"])
        sids[name] = run["sessionId"]
    assert host.request("session/status", {"sessionId": sids["app"]})["workspace"] == str(app)

    listed = {
        s["sessionId"]: s["workspace"] for s in host.request("session/listStored")["sessions"]
    }
    assert listed == {
        sids["app"]: str(app),
        sids["sub"]: str(app / "sub"),
        sids["other"]: str(other),
        sids["none"]: None,
    }
    inside = host.request("session/listStored", {"workspace": str(app)})["sessions"]
    assert {s["sessionId"] for s in inside} == {sids["app"], sids["sub"]}
    with pytest.raises(RpcError) as err:
        host.request("session/listStored", {"workspace": "my_app"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.workspace"

    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    run = host.request("run/start", {"sessionId": sids["app"], "message": "where?"})
    host.wait_run_completed(run["runId"])
    assert str(app) in tool_result(host, run["runId"])  # a new worker, its stored workspace
    assert host.request("session/status", {"sessionId": sids["app"]})["workspace"] == str(app)
