"""The ``event`` of a ``run/event``: one record per ``event.type``, defined once.

Contract: each ``...Event`` record's first field is ``type``, a one-value
Literal whose default is that value, set by keyword only, so building one
needs only its other fields. ``RunEvent`` is their union (the JSON Schema's ``anyOf``, a union of
literal-tagged types in generated clients); ``EVENT_TYPES`` maps each
``type`` to its record. Hosts must ignore event types they do not know, so a
new one is an addition, never a change of an existing one.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

from .record import Record, doc_field
from .usage import TokenUsage

JsonObject = dict[str, Any]
PlanStatus = Literal["pending", "in_progress", "completed", "cancelled"]
EditKind = Literal["added", "updated", "deleted"]
TYPE_DOC = "The event's type."


class ToolGeneratingEvent(Record):
    """The model began writing a call of this tool; its arguments are still streaming."""

    type: Literal["tool.generating"] = doc_field(TYPE_DOC, default="tool.generating", kw_only=True)
    name: str = doc_field("The tool.")


class ToolStartedEvent(Record):
    """A tool call begins."""

    type: Literal["tool.started"] = doc_field(TYPE_DOC, default="tool.started", kw_only=True)
    tool_call_id: str = doc_field("The model's id of the call.")
    name: str = doc_field("The tool.")
    args: JsonObject = doc_field("Its arguments, as hermes shows them (secrets redacted).")


class FileEdit(Record):
    """A file a tool call changed."""

    path: str = doc_field("The file's absolute path.")
    kind: EditKind = doc_field("Whether the call made it, changed it or removed it.")
    diff: str | None = doc_field(
        "The change as a unified diff (git's a/ and b/ headers, the path relative to the"
        " session's workspace); null when it cannot be shown (see protocol.md, File"
        " edits): a side that is not UTF-8 text or is larger than 1 MiB, a file hermes'"
        " agent may not read (a .env), or a diff longer than 256 KiB."
    )


class ToolCompletedEvent(Record):
    """A tool call ended."""

    type: Literal["tool.completed"] = doc_field(TYPE_DOC, default="tool.completed", kw_only=True)
    tool_call_id: str = doc_field("The model's id of the call.")
    name: str = doc_field("The tool.")
    result: str | None = doc_field("What it returned, at most 64 KiB.")
    truncated: bool = doc_field("Whether the result was cut at 64 KiB.")
    duration_ms: int | None = doc_field(
        "How long it ran, from its tool.started; null when hermes gave no call id."
    )
    is_error: bool | None = doc_field(
        "Whether the call failed, as hermes reads its result (a terminal command's non-zero"
        " exit, an error the tool returned); null when that could not be read."
    )
    edits: list[FileEdit] = doc_field(
        "The files it changed, for hermes' file-edit tools (write_file, patch,"
        " skill_manage); empty for other tools and for calls that changed nothing."
    )


class ToolOutputRiskEvent(Record):
    """hermes' scan found what reads like an attack in the output of a tool whose output
    comes from outside (web, browser and MCP tools): a prompt injection, say."""

    type: Literal["tool.outputRisk"] = doc_field(TYPE_DOC, default="tool.outputRisk", kw_only=True)
    tool_call_id: str = doc_field("The model's id of the call.")
    name: str = doc_field("The tool.")
    risk: str = doc_field("hermes' rating of the output, e.g. high.")
    findings: list[str] = doc_field(
        "hermes' ids of what its scan matched (e.g. prompt_injection); never the text itself."
    )
    redacted: bool = doc_field("Whether hermes removed anything from the output the model got.")


class ToolProgressEvent(Record):
    """Other tool activity hermes reports (e.g. subagents)."""

    type: Literal["tool.progress"] = doc_field(TYPE_DOC, default="tool.progress", kw_only=True)
    kind: str = doc_field("hermes' name for the activity.")
    name: str = doc_field("The tool or subagent.")
    preview: str | None = doc_field("A short preview, if hermes gives one.")


class ThinkingEvent(Record):
    """The agent's short status line; an empty text clears it."""

    type: Literal["thinking"] = doc_field(TYPE_DOC, default="thinking", kw_only=True)
    text: str = doc_field("The status line.")


class ReasoningDeltaEvent(Record):
    """Streamed model reasoning."""

    type: Literal["reasoning.delta"] = doc_field(TYPE_DOC, default="reasoning.delta", kw_only=True)
    text: str = doc_field("The next reasoning text.")


class ReasoningAvailableEvent(Record):
    """Reasoning or a content summary after an assistant message."""

    type: Literal["reasoning.available"] = doc_field(
        TYPE_DOC, default="reasoning.available", kw_only=True
    )
    text: str = doc_field("The reasoning.")


class StatusEvent(Record):
    """Lifecycle messages and warnings (retries, errors)."""

    type: Literal["status"] = doc_field(TYPE_DOC, default="status", kw_only=True)
    kind: str = doc_field("hermes' kind of message, e.g. lifecycle or warn.")
    message: str = doc_field("The message.")


class StepEvent(Record):
    """A model call is about to be made."""

    type: Literal["step"] = doc_field(TYPE_DOC, default="step", kw_only=True)
    api_calls: int | None = doc_field("Model calls of this turn so far, this one included.")
    tools: list[JsonObject] = doc_field(
        "The previous model call's tool calls: name, arguments and result of each."
    )


class PlanItem(Record):
    """One task of the agent's plan (its todo list), in the plan's order."""

    id: str = doc_field("The agent's id for the task.")
    content: str = doc_field("What the task is.")
    status: PlanStatus = doc_field("Where it stands.")


class PlanEvent(Record):
    """The agent wrote its plan (hermes' todo tool): the whole list as it is now."""

    type: Literal["plan"] = doc_field(TYPE_DOC, default="plan", kw_only=True)
    items: list[PlanItem] = doc_field("Every task, in order; empty when the plan was cleared.")


class TurnBoundaryEvent(Record):
    """A text block closed (tools are about to run)."""

    type: Literal["turn.boundary"] = doc_field(TYPE_DOC, default="turn.boundary", kw_only=True)


class UsageEvent(Record):
    """A model call of the run returned: what the run's calls used so far."""

    type: Literal["usage"] = doc_field(TYPE_DOC, default="usage", kw_only=True)
    usage: TokenUsage = doc_field("The run's usage so far, as in run/completed.")


class RateLimitWindow(Record):
    limit: int = doc_field("What the window allows (requests or tokens).")
    remaining: int = doc_field("What is left of it.")
    resets_at: int = doc_field("When it resets, in ms since the epoch (as the response said).")


class UsageLimitsEvent(Record):
    """A model call's response said the provider's rate limits (its x-ratelimit-*
    headers, as hermes reads them): each window it gave, null for one it did not."""

    type: Literal["usage.limits"] = doc_field(TYPE_DOC, default="usage.limits", kw_only=True)
    provider: str | None = doc_field("The provider hermes called, e.g. openrouter.")
    requests_per_minute: RateLimitWindow | None = doc_field("Requests, per minute.")
    requests_per_hour: RateLimitWindow | None = doc_field("Requests, per hour.")
    tokens_per_minute: RateLimitWindow | None = doc_field("Tokens, per minute.")
    tokens_per_hour: RateLimitWindow | None = doc_field("Tokens, per hour.")


class GoalEvaluatedEvent(Record):
    """The judge's verdict on a finished turn of a session with an active goal, and
    the goal's state after it (the fields of GoalInfo)."""

    type: Literal["goal.evaluated"] = doc_field(TYPE_DOC, default="goal.evaluated", kw_only=True)
    verdict: str = doc_field("done, continue, wait or skipped.")
    reason: str = doc_field("Why, in the judge's words.")
    should_continue: bool = doc_field("Whether the host should send continuationPrompt.")
    continuation_prompt: str | None = doc_field("The next run/start message, when it should.")
    message: str = doc_field("A one-line summary for the user.")
    # The GoalInfo fields, flat on the wire; a test keeps them equal to GoalInfo's.
    goal: str | None = doc_field("The standing goal; null when the session has none.")
    status: Literal["active", "paused", "done"] | None = doc_field("Where it stands.")
    turns_used: int = doc_field("Turns judged against it so far.")
    max_turns: int | None = doc_field("Its turn budget.")
    subgoals: list[str] = doc_field("Criteria added to it, in order.")
    last_verdict: str | None = doc_field("The judge's last verdict: done, continue, wait ...")
    last_reason: str | None = doc_field("Why, in the judge's words.")


class CommandExpandedEvent(Record):
    """The message started with a slash command, which was expanded."""

    type: Literal["command.expanded"] = doc_field(
        TYPE_DOC, default="command.expanded", kw_only=True
    )
    command: str = doc_field('The command as typed, e.g. "/code-review".')
    kind: Literal["skill", "bundle"] = doc_field("What it named.")
    skills: list[str] = doc_field("The skills loaded.")
    missing: list[str] = doc_field("A bundle's skills that are not installed.")


class ReferencesExpandedEvent(Record):
    """The message named @ context, which hermes read."""

    type: Literal["references.expanded"] = doc_field(
        TYPE_DOC, default="references.expanded", kw_only=True
    )
    references: list[str] = doc_field("The references, as typed.")
    warnings: list[str] = doc_field("hermes' warnings.")
    injected_tokens: int = doc_field("Rough tokens of the attached context.")
    blocked: bool = doc_field("Whether hermes refused to attach any of it.")


class ImagesAttachedEvent(Record):
    """The run brought images."""

    type: Literal["images.attached"] = doc_field(TYPE_DOC, default="images.attached", kw_only=True)
    mode: Literal["native", "text"] = doc_field("Sent to the model, or described as text.")
    attached: int = doc_field("Images attached.")
    skipped: list[str] = doc_field("Which image was skipped, e.g. images[0], and why.")


RunEvent = (
    ToolGeneratingEvent
    | ToolStartedEvent
    | ToolCompletedEvent
    | ToolOutputRiskEvent
    | ToolProgressEvent
    | ThinkingEvent
    | ReasoningDeltaEvent
    | ReasoningAvailableEvent
    | StatusEvent
    | StepEvent
    | TurnBoundaryEvent
    | PlanEvent
    | UsageEvent
    | UsageLimitsEvent
    | GoalEvaluatedEvent
    | CommandExpandedEvent
    | ReferencesExpandedEvent
    | ImagesAttachedEvent
)

EVENT_TYPES: dict[str, type[Record]] = {cls._spec[0][1]: cls for cls in typing.get_args(RunEvent)}
