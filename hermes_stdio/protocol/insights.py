"""A profile's usage over a period, as hermes' insights count it (``usage/summary``).
Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from .names import WorkerKey
from .record import Record, doc_field

MAX_DAYS = 3650
MAX_UTC_OFFSET_MINUTES = 1440


class UsageSummaryParams(Record):
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)
    days: int = doc_field("How far back to look, in days (1 to 3650).", default=30)
    source: str | None = doc_field(
        "Only sessions started with this run/start source, e.g. vscode.", default=None
    )
    utc_offset_minutes: int = doc_field(
        "The host's offset from UTC in minutes (-1440 to 1440): where daily's days begin.",
        default=0,
    )


class UsageTotals(Record):
    sessions: int = doc_field("Sessions started in the period (hermes' session rows).")
    messages: int = doc_field("Messages they hold.")
    user_messages: int = doc_field("Of those, the user's.")
    assistant_messages: int = doc_field("Of those, the model's.")
    tool_calls: int = doc_field("Tool calls the model made.")
    api_calls: int = doc_field("Model calls made, auxiliary ones (titles, compression) included.")
    input_tokens: int = doc_field("Prompt tokens sent.")
    output_tokens: int = doc_field("Tokens the model wrote.")
    cache_read_tokens: int = doc_field("Of the input, tokens the provider served from its cache.")
    cache_write_tokens: int = doc_field("Of the input, tokens the provider wrote to its cache.")
    reasoning_tokens: int = doc_field("Of the output, reasoning tokens.")
    cost_usd: float | None = doc_field(
        "What they cost in US dollars, as hermes estimates it; null if it priced no model."
    )
    actual_cost_usd: float = doc_field("What providers reported they charged, where they do.")
    active_seconds: float = doc_field("The ended sessions' durations, added up.")
    active_days: int = doc_field("Days (as daily counts them) on which a session started.")
    first_started_at: int | None = doc_field("When the earliest session started (ms).")
    last_started_at: int | None = doc_field("When the latest session started (ms).")


class ModelUsage(Record):
    model: str = doc_field("The model, without its provider prefix.")
    sessions: int = doc_field("Sessions that called it.")
    api_calls: int = doc_field("Calls made to it.")
    tool_calls: int = doc_field("Tool calls of the sessions that last ran with it.")
    input_tokens: int = doc_field("Prompt tokens sent to it.")
    output_tokens: int = doc_field("Tokens it wrote.")
    cache_read_tokens: int = doc_field("Of the input, tokens served from cache.")
    cache_write_tokens: int = doc_field("Of the input, tokens written to cache.")
    reasoning_tokens: int = doc_field("Of the output, reasoning tokens.")
    cost_usd: float | None = doc_field("hermes' estimate in US dollars; null when unpriced.")
    actual_cost_usd: float = doc_field("What its provider reported it charged, where it does.")


class SourceUsage(Record):
    source: str = doc_field("Where sessions came from: a run/start source, cli, and so on.")
    sessions: int = doc_field("Sessions started from it.")
    messages: int = doc_field("Messages they hold.")
    tool_calls: int = doc_field("Tool calls the model made in them.")
    input_tokens: int = doc_field("Prompt tokens of their conversations.")
    output_tokens: int = doc_field("Tokens the model wrote in them.")


class ToolUsage(Record):
    tool: str = doc_field("The tool's name.")
    calls: int = doc_field("Times the model called it.")


class SkillUsage(Record):
    skill: str = doc_field("The skill's name.")
    loads: int = doc_field("Times the model loaded it (skill_view).")
    edits: int = doc_field("Times the model changed it (skill_manage).")
    last_used_at: int | None = doc_field("When it was last loaded or changed (ms).")


class DayUsage(Record):
    date: str = doc_field("The day, YYYY-MM-DD, at utcOffsetMinutes.")
    sessions: int = doc_field("Sessions started that day.")
    api_calls: int = doc_field("Model calls of those sessions' conversations.")
    input_tokens: int = doc_field("Their prompt tokens.")
    output_tokens: int = doc_field("Tokens the model wrote in them.")
    cost_usd: float = doc_field("hermes' cost estimate stored with them (0 when unpriced).")


class UsageSummaryResult(Record):
    days: int = doc_field("The period asked for, in days.")
    since: int = doc_field("Its start (ms): sessions started from then on count.")
    source: str | None = doc_field("The source filter asked for.")
    totals: UsageTotals = doc_field("The period's figures, added up.")
    models: list[ModelUsage] = doc_field("Per model, most tokens first.")
    sources: list[SourceUsage] = doc_field("Per source, most sessions first.")
    tools: list[ToolUsage] = doc_field("Per tool, most calls first.")
    skills: list[SkillUsage] = doc_field("Per skill, most loads and edits first.")
    daily: list[DayUsage] = doc_field("Every day of the period, oldest first, idle days too.")
