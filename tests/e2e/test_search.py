"""session/search through the real binary and real hermes-agent: hermes' full-text search of a
profile's stored messages, each match named by the conversation session/listStored lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, answered, compress_under_new_ids, compressed_conversation


def found(host: HostClient, query: str, **params: Any) -> list[tuple[str, str]]:
    hits = host.request("session/search", {"query": query, **params})["hits"]
    return [(h["sessionId"], h["role"]) for h in hits]


def test_search_finds_stored_messages_across_a_profiles_sessions_with_the_match_marked(
    host: HostClient, llm: ScriptedLLM
) -> None:
    a = answered(host, llm, "plan the kiwi harvest", "Start at dawn.", source="vscode")
    b = answered(host, llm, "name a colour", "green, like a kiwi")
    work = answered(host, llm, "a kiwi at work", "ok", profile="work")
    host.request("session/destroy", {"sessionId": a})  # read back from the database
    [asked, _] = host.request("session/history", {"sessionId": a})["messages"]

    first = host.request("session/search", {"query": "kiwi", "order": "oldest"})
    assert first["nextOffset"] is None
    assert first["hits"][0] == {
        "sessionId": a,
        "title": None,
        "archived": False,
        "role": "user",
        "toolName": None,
        "snippet": [
            {"text": "plan the ", "match": False},
            {"text": "kiwi", "match": True},
            {"text": " harvest", "match": False},
        ],
        "timestamp": asked["timestamp"],
    }
    assert found(host, "kiwi", order="oldest") == [(a, "user"), (b, "assistant")]
    assert found(host, "kiwi", order="newest") == [(b, "assistant"), (a, "user")]
    assert found(host, "kiwi", roles=["assistant"]) == [(b, "assistant")]
    assert found(host, "kiwi", source="vscode") == [(a, "user")]
    assert found(host, '"kiwi harvest"') == [(a, "user")]
    assert found(host, "kiwi NOT harvest") == [(b, "assistant")]
    assert found(host, "harv*") == [(a, "user")]
    assert found(host, "kiwi", profile="work") == [(work, "user")]
    assert found(host, "zebra") == []

    page = host.request("session/search", {"query": "kiwi", "order": "oldest", "limit": 1})
    assert ([h["sessionId"] for h in page["hits"]], page["nextOffset"]) == ([a], 1)
    rest = host.request("session/search", {"query": "kiwi", "order": "oldest", "offset": 1})
    assert ([h["sessionId"] for h in rest["hits"]], rest["nextOffset"]) == ([b], None)

    host.request("session/archive", {"sessionId": a, "archived": True})
    host.request("session/rename", {"sessionId": b, "title": "Colours"})
    marks = {
        h["sessionId"]: (h["archived"], h["title"])
        for h in host.request("session/search", {"query": "kiwi"})["hits"]
    }
    assert marks == {a: (True, None), b: (False, "Colours")}


def test_search_finds_a_tool_result_and_names_its_tool(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "echo kiwisentinel"}), Reply.text(["It said so."])
    )
    run = host.request("run/start", {"message": "run the echo"})
    host.wait_run_completed(run["runId"])
    [hit] = host.request("session/search", {"query": "kiwisentinel", "roles": ["tool"]})["hits"]
    assert (hit["sessionId"], hit["role"], hit["toolName"]) == (
        run["sessionId"],
        "tool",
        "terminal",
    )
    assert {"text": "kiwisentinel", "match": True} in hit["snippet"]
    # The model's call names it too: hermes indexes tool calls' arguments.
    assert "assistant" in {role for _, role in found(host, "kiwisentinel")}


def test_search_names_a_compressed_conversation_by_its_first_id_and_skips_undone_messages(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    compress_under_new_ids(home)
    host = start_host()
    host.initialize()
    sid = compressed_conversation(host, llm, "answer 1")
    [listed] = host.request("session/listStored")["sessions"]
    assert listed["sessionId"] == sid

    assert found(host, "mango") == [(sid, "user")]  # stored under hermes' new id
    answered(host, llm, "what about papaya", "a fruit", sessionId=sid)
    assert found(host, "papaya") == [(sid, "user")]
    host.request("session/undo", {"sessionId": sid})
    assert found(host, "papaya") == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"query": "  "}, "params.query"),
        ({"query": "k" * 1001}, "params.query"),
        ({"query": "kiwi", "limit": 0}, "params.limit"),
        ({"query": "kiwi", "limit": 101}, "params.limit"),
        ({"query": "kiwi", "offset": -1}, "params.offset"),
        ({"query": "kiwi", "roles": []}, "params.roles"),
        ({"query": "kiwi", "roles": ["system"]}, "params.roles[0]"),
        ({"query": "kiwi", "order": "best"}, "params.order"),
        ({}, "params.query"),
    ],
)
def test_a_bad_search_is_invalid_params_naming_the_field(
    host: HostClient, params: dict[str, Any], field: str
) -> None:
    with pytest.raises(RpcError) as err:
        host.request("session/search", params)
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == field
