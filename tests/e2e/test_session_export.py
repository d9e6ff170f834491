"""session/export through the real binary and real hermes-agent: a stored session
as hermes' exporters render it, secrets masked on request, a compressed
conversation named by the host's id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, answered, compress_under_new_ids, compressed_conversation, refused

KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"


def export(host: HostClient, sid: str, **params: Any) -> dict[str, Any]:
    return host.request("session/export", {"sessionId": sid, **params})  # type: ignore[no-any-return]


def test_a_session_exports_as_markdown_html_and_json_with_secrets_masked_on_request(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = answered(host, llm, f"remember {KEY} for me", "I will not repeat it.")
    md = export(host, sid)
    assert (md["sessionId"], md["format"], md["messageCount"]) == (sid, "markdown", 2)
    assert md["content"].startswith("---\n") and f"remember {KEY} for me" in md["content"]
    assert "I will not repeat it." in md["content"]
    for fmt in ("markdown", "html", "json"):
        masked = export(host, sid, format=fmt, redact=True)["content"]
        assert KEY not in masked and "sk-pro" in masked, fmt
    data = json.loads(export(host, sid, format="json")["content"])
    assert data["id"] == sid
    assert [(m["role"], m["content"]) for m in data["messages"]] == [
        ("user", f"remember {KEY} for me"),
        ("assistant", "I will not repeat it."),
    ]
    assert "<html" in export(host, sid, format="html")["content"].lower()
    err = refused(host, "session/export", {"sessionId": "sess_nobody"})
    assert err.kind is ErrorType.UNKNOWN_SESSION and err.data["sessionId"] == "sess_nobody"
    err = refused(host, "session/export", {"sessionId": sid, "format": "pdf"})
    assert (err.kind, err.data["field"]) == (ErrorType.INVALID_PARAMS, "params.format")


def test_a_compressed_conversation_exports_as_it_is_now_or_whole_with_lineage(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    compress_under_new_ids(home)
    host = start_host()
    host.initialize()
    sid = compressed_conversation(host, llm, "answer 1 about figs")  # summarised

    now = json.loads(export(host, sid, format="json")["content"])
    assert now["id"] != sid  # hermes' newer id
    texts = [str(m["content"]) for m in now["messages"]]
    assert any("mango" in t for t in texts) and not any("figs" in t for t in texts)
    whole = export(host, sid, format="json", lineage=True)
    data = json.loads(whole["content"])
    assert data["lineage_session_ids"][0] == sid and data["lineage_session_ids"][-1] == now["id"]
    texts = [str(m["content"]) for m in data["messages"]]
    assert any("figs" in t for t in texts) and any("mango" in t for t in texts)
    assert whole["messageCount"] == len(data["messages"]) > len(now["messages"])


def test_a_lowered_body_limit_bounds_what_the_server_takes_not_what_it_sends(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--max-body-bytes", "16384")
    host.initialize()
    sid = answered(host, llm, "a", "x" * 20000)  # its run/completed alone is over the limit
    got = host.request("session/export", {"sessionId": sid, "format": "json"})
    assert "x" * 20000 in got["content"] and got["messageCount"] == 2
