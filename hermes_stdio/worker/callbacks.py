"""How an AIAgent's callbacks become ``run/delta`` and ``run/event``.

Contract: ``agent_callbacks(sink)`` gives the AIAgent callback keyword
arguments, each mapping hermes' call onto ``sink.delta`` or ``sink.event``
(a ``protocol.events`` record with JSON-safe fields); tool results are cut at
``MAX_TOOL_RESULT_CHARS``. A ``todo`` call that wrote the agent's list is
followed by a ``plan`` event with the whole list. hermes' scan of a tool's
untrusted output, when it rates it risky, is a ``tool.outputRisk`` event.
``EventSink`` is the session's current run.
- ``subagent``, when given, takes a subagent's activity hermes relays (a
  ``subagent.*`` progress kind, with the child's identity as keywords) and
  says whether it took it (a background subagent's: pushed as
  ``subagent/progress``); what it does not take is the run's
  ``tool.progress``, as before.
- ``returned``, when given, is called after each tool's completion is sent
  (``ProcessWatch.report_late``: hermes marks a background command for notice
  only as its tool returns).
- ``edits``, when given, reads the files a call will edit as it starts and
  says which it changed as it ends (``edits.EditWatch``): the ``edits`` of its
  ``tool.completed``.
- ``failed``, when given, is hermes' reading of whether a result is a failure
  (its ``isError``; null when the reading raises).
Nothing here imports hermes-agent.
"""

from __future__ import annotations

import contextlib
import json
import time
import typing
from collections.abc import Callable
from typing import Any, Protocol

from ..protocol import events as ev
from ..protocol.events import RunEvent
from ..wire import to_jsonable

MAX_TOOL_RESULT_CHARS = 64 * 1024
MAX_OPEN_CALLS = 1024
_PLAN_STATUSES = frozenset(typing.get_args(ev.PlanStatus))


class EventSink(Protocol):
    """Where an agent's callbacks go: the session's current run."""

    def delta(self, text: str) -> None: ...

    def event(self, event: RunEvent) -> None: ...


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def plan_items(result: str) -> list[ev.PlanItem] | None:
    """The list a ``todo`` tool result holds (``{"todos": [{id, content, status}]}``);
    None for any other result, such as the tool's error."""
    try:
        todos = json.loads(result).get("todos")
    except (ValueError, AttributeError):
        return None
    if not isinstance(todos, list):
        return None
    items = []
    for todo in todos:
        status = todo.get("status") if isinstance(todo, dict) else None
        if status in _PLAN_STATUSES:
            item_id, content = text_of(todo.get("id", "")), text_of(todo.get("content", ""))
            items.append(ev.PlanItem(item_id, content, typing.cast(ev.PlanStatus, status)))
    return items


# kind, tool name, preview, the child's identity -> whether it was taken
SubagentHook = Callable[[str, Any, Any, dict[str, Any]], bool]


class EditHook(Protocol):
    """What a call changed in the files it edits (``edits.EditWatch``)."""

    def before(self, call_id: str, name: str, args: dict[str, Any]) -> None: ...

    def after(self, call_id: str) -> list[ev.FileEdit]: ...


def agent_callbacks(
    sink: EventSink,
    subagent: SubagentHook | None = None,
    returned: Callable[[], None] | None = None,
    edits: EditHook | None = None,
    failed: Callable[[str, str], bool] | None = None,
) -> dict[str, Callable[..., None]]:
    """AIAgent callback kwargs mapped onto ``run/delta`` and ``run/event``."""

    def stream_delta(text: Any = None) -> None:
        if text is None:
            sink.event(ev.TurnBoundaryEvent())
        elif text:
            sink.delta(text_of(text))

    def tool_generating(name: Any = None) -> None:
        sink.event(ev.ToolGeneratingEvent(name=text_of(name or "")))

    started: dict[str, float] = {}  # call id -> when its tool.started was sent

    def tool_start(call_id: Any, name: Any, args: Any = None) -> None:
        if call_id:
            if len(started) > MAX_OPEN_CALLS:  # calls an interrupt left without an end
                started.clear()
            started[text_of(call_id)] = time.monotonic()
            if edits is not None and isinstance(args, dict):
                edits.before(text_of(call_id), text_of(name or ""), args)
        sink.event(
            ev.ToolStartedEvent(
                tool_call_id=text_of(call_id or ""),
                name=text_of(name or ""),
                args=to_jsonable(args) if isinstance(args, dict) else {},
            )
        )

    def tool_complete(call_id: Any, name: Any, args: Any = None, result: Any = None) -> None:
        text = None if result is None else text_of(result)
        began = started.pop(text_of(call_id), None) if call_id else None
        changed = edits.after(text_of(call_id)) if edits is not None and call_id else []
        is_error = None
        if failed is not None and text is not None:
            with contextlib.suppress(Exception):  # hermes' reading changed: unknown, not a failure
                is_error = bool(failed(text_of(name or ""), text))
        sink.event(
            ev.ToolCompletedEvent(
                tool_call_id=text_of(call_id or ""),
                name=text_of(name or ""),
                result=None if text is None else text[:MAX_TOOL_RESULT_CHARS],
                truncated=text is not None and len(text) > MAX_TOOL_RESULT_CHARS,
                duration_ms=None if began is None else int((time.monotonic() - began) * 1000),
                is_error=is_error,
                edits=changed,
            )
        )
        if name == "todo" and isinstance(args, dict) and "todos" in args and text:
            items = plan_items(text)  # it wrote the list: its result is the whole list
            if items is not None:
                sink.event(ev.PlanEvent(items=items))
        if returned is not None:
            returned()

    def tool_progress(
        kind: Any = None, name: Any = None, preview: Any = None, args: Any = None, **more: Any
    ) -> None:
        if kind in (None, "tool.started", "tool.completed"):
            return  # the start/complete callbacks carry these, with the call id
        risk = more.get("risk_metadata")
        if kind == "tool.output_risk" and isinstance(risk, dict):
            found = risk.get("findings")
            sink.event(
                ev.ToolOutputRiskEvent(
                    tool_call_id=text_of(more.get("tool_call_id") or ""),
                    name=text_of(name or ""),
                    risk=text_of(risk.get("risk") or ""),
                    findings=[text_of(f) for f in found] if isinstance(found, list) else [],
                    redacted=bool(risk.get("redacted", False)),
                )
            )
            return
        if (
            subagent is not None
            and isinstance(kind, str)
            and kind.startswith("subagent")
            and subagent(kind, name, preview, more)
        ):
            return
        if kind == "_thinking":
            sink.event(ev.ThinkingEvent(text=text_of(name or "")))
        elif kind == "reasoning.available":
            sink.event(ev.ReasoningAvailableEvent(text=text_of(preview or "")))
        else:
            sink.event(
                ev.ToolProgressEvent(
                    kind=text_of(kind),
                    name=text_of(name or ""),
                    preview=None if preview is None else text_of(preview),
                )
            )

    def reasoning(text: Any = None) -> None:
        if text:
            sink.event(ev.ReasoningDeltaEvent(text=text_of(text)))

    def thinking(text: Any = None) -> None:
        sink.event(ev.ThinkingEvent(text=text_of(text or "")))

    def status(kind: Any = None, message: Any = None, *_: Any) -> None:
        sink.event(ev.StatusEvent(kind=text_of(kind or ""), message=text_of(message or "")))

    def step(api_calls: Any = None, tools: Any = None) -> None:
        calls = tools if isinstance(tools, list) else []
        sink.event(
            ev.StepEvent(
                api_calls=api_calls if isinstance(api_calls, int) else None,
                tools=[to_jsonable(c) for c in calls if isinstance(c, dict)],
            )
        )

    return {
        "stream_delta_callback": stream_delta,
        "tool_gen_callback": tool_generating,
        "tool_start_callback": tool_start,
        "tool_complete_callback": tool_complete,
        "tool_progress_callback": tool_progress,
        "reasoning_callback": reasoning,
        "thinking_callback": thinking,
        "status_callback": status,
        "step_callback": step,
    }
