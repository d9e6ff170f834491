"""Compression by the host: CompressionBridge waits on the run's thread until the host
answers, the time runs out or the run is interrupted, each closed by one
compression/resolved; delegate_compression routes a hermes agent's compression to it
while the session says host, and stores the result in place."""

from __future__ import annotations

import threading
from typing import Any

from test_worker_clarify import Wire, session_with_run

from hermes_stdio.protocol.usage import ContextPart
from hermes_stdio.worker.compression import CompressionBridge, delegate_compression, estimate
from hermes_stdio.worker.state import Session

WAIT = 10.0
OLD = [{"role": "user", "content": "a long story"}, {"role": "assistant", "content": "yes"}]
NEW = [{"role": "user", "content": "short"}]


def measure(messages: list[dict[str, Any]]) -> int:
    return 10 * len(messages)


def ask_in_thread(
    bridge: CompressionBridge, session: Session
) -> tuple[dict[str, Any], threading.Thread]:
    out: dict[str, Any] = {}

    def ask() -> None:
        out["result"] = bridge.ask(session, OLD, 123, 1000, "fruit", measure)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    return out, thread


def test_the_hosts_messages_are_returned_and_close_the_request_as_compressed() -> None:
    wire, bridge = Wire(), CompressionBridge()
    session = session_with_run(wire)
    out, thread = ask_in_thread(bridge, session)
    asked = wire.wait_method("compression/requested")
    assert {k: v for k, v in asked.items() if k != "compressionId"} == {
        "runId": "run_1",
        "sessionId": "sess_1",
        "seq": 1,
        "messages": OLD,
        "messageCount": 2,
        "tokens": 123,
        "contextLength": 1000,
        "focusTopic": "fruit",
        "timeoutMs": 180_000,
    }
    cid = asked["compressionId"]
    assert bridge.answer("sess_other", cid, NEW, None) is None  # another session's id
    assert bridge.answer("sess_1", cid, NEW, None) == "compressed"
    assert bridge.answer("sess_1", cid, NEW, None) is None  # answered already
    thread.join(WAIT)
    assert out["result"] == NEW
    closed = wire.wait_method("compression/resolved")
    assert closed == {
        "runId": "run_1",
        "sessionId": "sess_1",
        "seq": 2,
        "compressionId": cid,
        "outcome": "compressed",
        "messageCount": 1,
        "tokens": 10,
        "error": None,
    }


def test_a_host_error_returns_nothing_and_closes_the_request_as_failed() -> None:
    wire, bridge = Wire(), CompressionBridge()
    session = session_with_run(wire)
    out, thread = ask_in_thread(bridge, session)
    cid = wire.wait_method("compression/requested")["compressionId"]
    assert bridge.answer("sess_1", cid, None, "offline") == "failed"
    thread.join(WAIT)
    assert out["result"] is None
    closed = wire.wait_method("compression/resolved")
    assert (closed["outcome"], closed["error"], closed["tokens"]) == ("failed", "offline", None)


def test_no_answer_in_time_is_timed_out_and_an_interrupt_is_cancelled() -> None:
    wire, bridge = Wire(), CompressionBridge(timeout_s=0.01)
    out, thread = ask_in_thread(bridge, session_with_run(wire))
    thread.join(WAIT)
    assert out["result"] is None
    assert wire.wait_method("compression/resolved")["outcome"] == "timed_out"

    wire, bridge = Wire(), CompressionBridge()
    session = session_with_run(wire)
    out, thread = ask_in_thread(bridge, session)
    cid = wire.wait_method("compression/requested")["compressionId"]
    assert session.run is not None
    session.run.request_interrupt(None)
    thread.join(WAIT)
    assert out["result"] is None
    assert wire.wait_method("compression/resolved")["outcome"] == "cancelled"
    assert bridge.answer("sess_1", cid, NEW, None) is None


class FakeDB:
    def __init__(self) -> None:
        self.compacted: list[tuple[str, list[dict[str, Any]]]] = []

    def archive_and_compact(self, session_id: str, messages: list[dict[str, Any]]) -> int:
        self.compacted.append((session_id, messages))
        return len(messages)


class FakeHermesAgent:
    """The parts of hermes' AIAgent that delegate_compression touches."""

    def __init__(self) -> None:
        self.own_calls: list[tuple[Any, ...]] = []
        self._cached_system_prompt = "SYSTEM"
        self.tools: list[Any] = []
        self.session_id = "sess_1"
        self._session_db = FakeDB()
        self._flushed_db_message_ids = {1, 2}
        self._last_flushed_db_idx = 5
        self._last_compaction_in_place = False

    def _compress_context(self, messages: Any, system_message: Any, **kw: Any) -> Any:
        self.own_calls.append((messages, system_message, kw))
        return ["hermes' own"], "PROMPT"

    def _build_system_prompt(self, system_message: Any) -> str:
        raise AssertionError("the cached prompt is used")


def rough(messages: list[Any], system_prompt: str = "", tools: Any = None) -> int:
    return len(messages) + len(system_prompt)


def test_an_agent_compressed_session_keeps_hermes_own_compression() -> None:
    agent, session = FakeHermesAgent(), Session("sess_1", "default")
    delegate_compression(agent, session, CompressionBridge(), rough)
    assert agent._compress_context(OLD, None, force=True) == (["hermes' own"], "PROMPT")
    assert agent.own_calls == [(OLD, None, {"force": True})]


def test_a_host_compressed_session_asks_the_host_and_stores_the_result_in_place() -> None:
    wire, bridge, agent = Wire(), CompressionBridge(), FakeHermesAgent()
    session = session_with_run(wire)
    session.compression = "host"
    delegate_compression(agent, session, bridge, rough)
    out: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: out.update(r=agent._compress_context([*OLD, {"_x": 1, "role": "user"}]))
    )
    thread.start()
    asked = wire.wait_method("compression/requested")
    assert asked["messages"][-1] == {"role": "user"}  # hermes' private keys stay home
    assert asked["tokens"] == 3 + len("SYSTEM")
    bridge.answer("sess_1", asked["compressionId"], NEW, None)
    thread.join(WAIT)
    assert out["r"] == (NEW, "SYSTEM")
    assert agent.own_calls == []
    assert agent._session_db.compacted == [("sess_1", NEW)]
    assert (agent._flushed_db_message_ids, agent._last_flushed_db_idx) == (set(), 0)
    assert agent._last_compaction_in_place is True
    assert wire.wait_method("compression/resolved")["tokens"] == 1 + len("SYSTEM")


def test_a_host_compression_that_fails_leaves_the_messages_and_the_database_alone() -> None:
    wire, bridge, agent = Wire(), CompressionBridge(), FakeHermesAgent()
    session = session_with_run(wire)
    session.compression = "host"
    delegate_compression(agent, session, bridge, rough)
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.update(r=agent._compress_context(OLD, None)))
    thread.start()
    bridge.answer("sess_1", wire.wait_method("compression/requested")["compressionId"], None, "x")
    thread.join(WAIT)
    assert out["r"] == (OLD, "SYSTEM")
    assert agent._session_db.compacted == []
    assert agent._last_flushed_db_idx == 5


def test_host_messages_the_estimator_cannot_count_still_compress_without_a_token_figure() -> None:
    wire, bridge = Wire(), CompressionBridge()
    session = session_with_run(wire)

    def choke(messages: list[dict[str, Any]]) -> int:
        raise TypeError("unexpected content")

    out: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: out.update(r=bridge.ask(session, OLD, 1, None, None, choke))
    )
    thread.start()
    bridge.answer("sess_1", wire.wait_method("compression/requested")["compressionId"], NEW, None)
    thread.join(WAIT)
    assert out["r"] == NEW
    closed = wire.wait_method("compression/resolved")
    assert (closed["outcome"], closed["messageCount"], closed["tokens"]) == ("compressed", 1, None)


class Estimated:
    """hermes' agent, in short: what estimate reads of it."""

    _cached_system_prompt = "You are hermes."
    tools = [{"name": "terminal"}]
    context_compressor = type("Compressor", (), {"context_length": 1000, "last_prompt_tokens": 0})


def test_an_estimate_gives_hermes_breakdown_and_the_sessions_instructions_as_a_part() -> None:
    def breakdown(agent: Any, messages: list[dict[str, Any]]) -> dict[str, Any]:
        assert messages == NEW
        return {"categories": [{"id": "conversation", "label": "Conversation", "tokens": 5}]}

    got = estimate(Estimated(), NEW, "Be brief, please", rough, breakdown)
    assert got["breakdown"] == [
        ContextPart(id="conversation", label="Conversation", tokens=5),
        ContextPart(id="instructions", label="Instructions", tokens=16),
    ]
    assert got["last_prompt_tokens"] is None  # hermes' 0: no request yet


def test_a_failing_breakdown_leaves_the_estimate_without_segments() -> None:
    def breakdown(agent: Any, messages: list[dict[str, Any]]) -> dict[str, Any]:
        raise RuntimeError("hermes changed")

    got = estimate(Estimated(), NEW, None, rough, breakdown)
    assert got["breakdown"] == [] and got["tokens"] > 0
