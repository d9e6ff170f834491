"""hermes' agent callbacks become typed run events: each one a ``protocol.events``
record that decodes as a ``run/event``'s event, whatever odd values hermes passes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_stdio.protocol import decode, encode
from hermes_stdio.protocol import events as ev
from hermes_stdio.protocol.types import RunEventNotification
from hermes_stdio.worker import callbacks
from hermes_stdio.worker.callbacks import MAX_TOOL_RESULT_CHARS, agent_callbacks


class Sink:
    def __init__(self) -> None:
        self.deltas: list[str] = []
        self.events: list[ev.RunEvent] = []

    def delta(self, text: str) -> None:
        self.deltas.append(text)

    def event(self, event: ev.RunEvent) -> None:
        self.events.append(event)


def on_the_wire(event: ev.RunEvent) -> dict[str, Any]:
    """The event as a host reads it, checked against the protocol's types."""
    params = {"runId": "r", "sessionId": "s", "seq": 1, "event": encode(event)}
    wire = json.loads(json.dumps(params, allow_nan=False))
    assert decode(RunEventNotification, wire).event == event
    event_json: dict[str, Any] = wire["event"]
    return event_json


def test_every_callback_gives_an_event_that_decodes_as_its_own_type() -> None:
    sink = Sink()
    cb = agent_callbacks(sink)
    cb["stream_delta_callback"]("Hi")
    cb["stream_delta_callback"](None)
    cb["tool_gen_callback"]("write_file")
    cb["tool_start_callback"]("c1", "terminal", {"command": "ls", "n": float("nan")})
    cb["tool_complete_callback"]("c1", "terminal", {}, "x" * (MAX_TOOL_RESULT_CHARS + 1))
    cb["tool_progress_callback"]("subagent.start", "delegate", None)
    cb["tool_progress_callback"]("_thinking", "pondering")
    cb["tool_progress_callback"]("reasoning.available", None, "summary")
    cb["reasoning_callback"]("because")
    cb["thinking_callback"](None)
    cb["status_callback"]("warn", "retrying")
    cb["step_callback"](2, [{"name": "terminal", "result": "ok", "arguments": "{}"}, "odd"])
    assert sink.deltas == ["Hi"]
    wire = [on_the_wire(e) for e in sink.events]
    assert [w["type"] for w in wire] == [
        "turn.boundary",
        "tool.generating",
        "tool.started",
        "tool.completed",
        "tool.progress",
        "thinking",
        "reasoning.available",
        "reasoning.delta",
        "thinking",
        "status",
        "step",
    ]
    assert wire[2] == {
        "type": "tool.started",
        "toolCallId": "c1",
        "name": "terminal",
        "args": {"command": "ls", "n": "nan"},  # strict JSON: NaN arrives as a string
    }
    assert len(wire[3]["result"]) == MAX_TOOL_RESULT_CHARS and wire[3]["truncated"] is True
    assert wire[8] == {"type": "thinking", "text": ""}
    assert wire[10]["tools"] == [{"name": "terminal", "result": "ok", "arguments": "{}"}]


def test_callbacks_given_nothing_still_give_well_typed_events() -> None:
    sink = Sink()
    cb = agent_callbacks(sink)
    cb["tool_gen_callback"]()
    cb["tool_start_callback"](None, None, "not an object")
    cb["tool_complete_callback"](None, None)
    cb["tool_progress_callback"]("custom")
    cb["status_callback"]()
    cb["step_callback"]("two", None)
    cb["stream_delta_callback"]("")
    cb["reasoning_callback"]("")
    cb["tool_progress_callback"]("tool.started", "terminal")  # carried by tool_start instead
    wire = [on_the_wire(e) for e in sink.events]
    assert wire == [
        {"type": "tool.generating", "name": ""},
        {"type": "tool.started", "toolCallId": "", "name": "", "args": {}},
        {
            "type": "tool.completed",
            "toolCallId": "",
            "name": "",
            "result": None,
            "truncated": False,
            "durationMs": None,  # no call id to time it by
            "isError": None,  # no result, and no reading of one
            "edits": [],
        },
        {"type": "tool.progress", "kind": "custom", "name": "", "preview": None},
        {"type": "status", "kind": "", "message": ""},
        {"type": "step", "apiCalls": None, "tools": []},
    ]


def test_a_completed_call_says_how_long_it_ran_since_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(callbacks.time, "monotonic", lambda: now[0])
    sink = Sink()
    cb = agent_callbacks(sink)
    cb["tool_start_callback"]("a", "terminal", {})
    cb["tool_start_callback"]("b", "read_file", {})  # concurrent calls
    now[0] = 101.25
    cb["tool_complete_callback"]("b", "read_file", {}, "text")
    now[0] = 103.5
    cb["tool_complete_callback"]("a", "terminal", {}, "ok")
    cb["tool_complete_callback"]("a", "terminal", {}, "again")  # no start left to time by
    done = [e for e in sink.events if isinstance(e, ev.ToolCompletedEvent)]
    assert [(e.tool_call_id, e.duration_ms) for e in done] == [
        ("b", 1250),
        ("a", 3500),
        ("a", None),
    ]


def todo_result(*todos: dict[str, str]) -> str:
    return json.dumps({"todos": list(todos), "summary": {"total": len(todos)}})


def test_a_todo_call_that_wrote_the_list_is_followed_by_the_whole_plan() -> None:
    sink = Sink()
    cb = agent_callbacks(sink)
    written = {"todos": [{"id": "1", "content": "ship", "status": "in_progress"}], "merge": True}
    whole = todo_result(
        {"id": "0", "content": "plan", "status": "completed"},
        {"id": "1", "content": "ship", "status": "in_progress"},
        {"id": "2", "content": "odd", "status": "someday"},  # not a status hermes keeps
    )
    cb["tool_complete_callback"]("c1", "todo", written, whole)
    assert [on_the_wire(e) for e in sink.events][1] == {
        "type": "plan",
        "items": [
            {"id": "0", "content": "plan", "status": "completed"},
            {"id": "1", "content": "ship", "status": "in_progress"},
        ],
    }
    cb["tool_complete_callback"]("c2", "todo", {"todos": []}, todo_result())
    assert on_the_wire(sink.events[-1]) == {"type": "plan", "items": []}  # cleared


def test_a_todo_read_a_failed_todo_call_or_another_tool_gives_no_plan() -> None:
    sink = Sink()
    cb = agent_callbacks(sink)
    cb["tool_complete_callback"]("c1", "todo", {}, todo_result())  # read, nothing written
    cb["tool_complete_callback"]("c2", "todo", {"todos": "[x"}, '{"error": "unparseable"}')
    cb["tool_complete_callback"]("c3", "todo", {"todos": []}, "not json")
    cb["tool_complete_callback"]("c4", "terminal", {"todos": []}, todo_result())
    assert [e.type for e in sink.events] == ["tool.completed"] * 4


def test_a_subagents_activity_goes_to_the_subagent_hook_and_what_it_declines_to_the_run() -> None:
    sink, taken = Sink(), []

    def hook(kind: str, name: Any, preview: Any, identity: dict[str, Any]) -> bool:
        taken.append((kind, name, preview, identity))
        return identity.get("goal") != "within the turn"

    cb = agent_callbacks(sink, hook)["tool_progress_callback"]
    cb("subagent.tool", "terminal", "ls", {"command": "ls"}, goal="bg", task_index=0)
    cb("subagent.text", None, "hi", None, goal="within the turn", task_index=0)
    cb("_thinking", "pondering")  # the parent's own: never the hook's
    cb("custom", "x", "y")
    assert taken == [
        ("subagent.tool", "terminal", "ls", {"goal": "bg", "task_index": 0}),
        ("subagent.text", None, "hi", {"goal": "within the turn", "task_index": 0}),
    ]
    assert [on_the_wire(e) for e in sink.events] == [
        {"type": "tool.progress", "kind": "subagent.text", "name": "", "preview": "hi"},
        {"type": "thinking", "text": "pondering"},
        {"type": "tool.progress", "kind": "custom", "name": "x", "preview": "y"},
    ]


def test_returned_is_called_after_each_tools_completion_is_sent() -> None:
    sink = Sink()
    seen: list[int] = []
    cbs = agent_callbacks(sink, returned=lambda: seen.append(len(sink.events)))
    cbs["tool_start_callback"]("call_1", "terminal", {"command": "echo", "background": True})
    assert seen == []
    cbs["tool_complete_callback"]("call_1", "terminal", {}, '{"session_id": "proc_1"}')
    cbs["tool_complete_callback"]("call_2", "todo", {"todos": []}, '{"todos": []}')
    assert seen == [2, 4]  # after the completion (and the todo's plan) went out


def test_hermes_rating_a_tools_output_risky_is_a_tool_output_risk_event() -> None:
    sink = Sink()
    cb = agent_callbacks(sink)
    risk = {"risk": "high", "findings": ["prompt_injection"], "redacted": False}
    cb["tool_progress_callback"](
        "tool.output_risk", "web_extract", None, None, tool_call_id="c7", risk_metadata=risk
    )
    odd = {"risk": None, "findings": "not a list"}
    cb["tool_progress_callback"]("tool.output_risk", None, None, None, risk_metadata=odd)
    cb["tool_progress_callback"]("tool.output_risk", "web_extract", None, None)  # no rating
    assert [on_the_wire(e) for e in sink.events] == [
        {
            "type": "tool.outputRisk",
            "toolCallId": "c7",
            "name": "web_extract",
            "risk": "high",
            "findings": ["prompt_injection"],
            "redacted": False,
        },
        {
            "type": "tool.outputRisk",
            "toolCallId": "",
            "name": "",
            "risk": "",
            "findings": [],
            "redacted": False,
        },
        # Without hermes' rating there is nothing to type: the generic relay, as before.
        {
            "type": "tool.progress",
            "kind": "tool.output_risk",
            "name": "web_extract",
            "preview": None,
        },
    ]


def test_a_completed_call_says_whether_it_failed_as_the_given_reading_has_it() -> None:
    sink = Sink()
    readings: list[tuple[str, str]] = []

    def failed(name: str, result: str) -> bool:
        readings.append((name, result))
        if result == "odd":
            raise ValueError("hermes changed")
        return result.startswith("Error")

    cb = agent_callbacks(sink, failed=failed)
    cb["tool_complete_callback"]("a", "terminal", {}, "Error: exit 1")
    cb["tool_complete_callback"]("b", "read_file", {}, "text")
    cb["tool_complete_callback"]("c", "read_file", {}, "odd")  # no reading: unknown
    cb["tool_complete_callback"]("d", "read_file", {}, None)  # no result to read
    done = [e for e in sink.events if isinstance(e, ev.ToolCompletedEvent)]
    assert [e.is_error for e in done] == [True, False, None, None]
    assert readings == [("terminal", "Error: exit 1"), ("read_file", "text"), ("read_file", "odd")]
