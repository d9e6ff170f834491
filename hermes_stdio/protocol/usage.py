"""How full a session's context is, and what a run's model calls used. Names
follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Any

from .names import SessionId, WorkerKey
from .record import Record, doc_field

JsonObject = dict[str, Any]


class SessionContextParams(Record):
    session_id: SessionId = doc_field("The session; created (or resumed) when no worker holds it.")
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)
    messages: list[JsonObject] | None = doc_field(
        "Estimate this OpenAI-style history instead of the session's own.", None
    )
    instructions: str | None = doc_field(
        "Estimate with these extra system instructions instead of the session's.", None
    )


class ContextPart(Record):
    id: str = doc_field(
        "What it is: system_prompt, tool_definitions, rules (context files), skills (their"
        " index), mcp (MCP servers' tools), subagent_definitions, memory, conversation,"
        " instructions (the session's own)."
    )
    label: str = doc_field("hermes' title for it, e.g. Tool definitions.")
    tokens: int = doc_field("Its rough tokens (about 4 characters each).")


class SessionContextResult(Record):
    session_id: str = doc_field("The session.")
    model: str | None = doc_field("The session's model.")
    context_length: int | None = doc_field("The model's context window in tokens, if known.")
    tokens: int = doc_field("Rough tokens of the next request: history, system prompt and tools.")
    fixed_tokens: int = doc_field("Of those, what every request carries: system prompt and tools.")
    system_prompt_tokens: int = doc_field("Of the fixed ones, the system prompt's.")
    tool_tokens: int = doc_field("Of the fixed ones, the tool schemas'.")
    message_count: int = doc_field("Messages in the estimated history.")
    tool_count: int = doc_field("Tools the agent offers the model.")
    breakdown: list[ContextPart] = doc_field(
        "The request's make-up as hermes' context breakdown gives it, a context meter's"
        " segments (parts with tokens only; they add up to about tokens); empty when"
        " hermes gives none."
    )
    last_prompt_tokens: int | None = doc_field(
        "The prompt tokens the provider counted for the session's last request; null"
        " before its first in this worker, or when the provider reports none."
    )


class TokenUsage(Record):
    input_tokens: int = doc_field("Prompt tokens sent, over all of the run's model calls.")
    output_tokens: int = doc_field("Tokens the model wrote.")
    cache_read_tokens: int = doc_field("Of the input, tokens the provider served from its cache.")
    cache_write_tokens: int = doc_field("Of the input, tokens the provider wrote to its cache.")
    reasoning_tokens: int = doc_field("Of the output, reasoning tokens.")
    total_tokens: int = doc_field("Input and output together, as the provider counts them.")
    context_tokens: int | None = doc_field(
        "The last request's prompt size: how full the context window is now; null if unknown."
    )
    context_length: int | None = doc_field("The model's context window, if known.")
    cost_usd: float | None = doc_field(
        "What these calls cost in US dollars, as hermes estimates it; null if it has no price."
    )
