"""Every protocol type, defined once.

Python names are snake_case; the wire uses camelCase (see ``model``). Types
are named ``...Params``, ``...Result`` and ``...Notification`` after their
role. Timestamps are integer milliseconds since the Unix epoch.
"""

from __future__ import annotations

from typing import Any, Literal

from .events import RunEvent
from .inputs import ImageInput
from .names import SessionId, WorkerKey
from .record import Record, doc_field
from .usage import TokenUsage

PROTOCOL_VERSION = 1

JsonObject = dict[str, Any]
RunStatus = Literal["complete", "interrupted", "error"]
# hermes' levels (VALID_REASONING_EFFORTS), and "none" for no reasoning.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"]
RunErrorKind = Literal[
    "agent_unavailable",
    "agent_error",
    "worker_crashed",
    "worker_stopped",
    "internal_error",
    "context_refused",
    "context_unreadable",
]


class RunErrorType:
    """The ``RunError.type`` values (see protocol.md, run/completed)."""

    AGENT_UNAVAILABLE: RunErrorKind = "agent_unavailable"
    AGENT_ERROR: RunErrorKind = "agent_error"
    WORKER_CRASHED: RunErrorKind = "worker_crashed"
    WORKER_STOPPED: RunErrorKind = "worker_stopped"
    INTERNAL_ERROR: RunErrorKind = "internal_error"
    CONTEXT_REFUSED: RunErrorKind = "context_refused"
    CONTEXT_UNREADABLE: RunErrorKind = "context_unreadable"


CompressionMode = Literal["agent", "host"]
TriggerKind = Literal["subagent", "process", "cron"]


# --- lifecycle -------------------------------------------------------------


class ClientInfo(Record):
    name: str = doc_field("The host's name, for logs.")
    version: str | None = doc_field("The host's version.", None)


class ClientCapabilities(Record):
    opt_out_notification_methods: list[str] | None = doc_field(
        "Notifications the server must not send this host (each one of"
        " ServerCapabilities.notifications). Those a run or a waiting request needs"
        " (run/started, run/completed, and every .../requested and .../resolved) cannot"
        " be opted out of.",
        None,
    )
    opt_out_run_events: list[str] | None = doc_field(
        "run/event types the server must not send this host (each one of"
        " ServerCapabilities.runEvents).",
        None,
    )


class InitializeOptions(Record):
    prewarm_profiles: list[str] | None = doc_field(
        "Profiles whose workers start (and import hermes-agent) right after initialize, "
        "so their first run/start does not wait for a cold worker.",
        None,
    )
    schedule_cron: bool | None = doc_field(
        "Fire every profile's cron jobs as they come due while this server runs, as"
        " hermes' gateway does: a cron/tick of the profile's worker (started if need be)"
        " at the soonest nextRunAt; each job fired is a run of its own. Off when absent.",
        None,
    )


class InitializeParams(Record):
    protocol_version: int = doc_field("The protocol version the host speaks; this server speaks 1.")
    client_info: ClientInfo | None = doc_field("Who the host is.", None)
    capabilities: ClientCapabilities | None = doc_field(
        "What the host wants sent; null or {} for everything.", None
    )
    options: InitializeOptions | None = doc_field("Server options.", None)


class ServerInfo(Record):
    name: str = doc_field("Always hermes-stdio.")
    version: str = doc_field("The hermes-stdio package version.")


class ServerCapabilities(Record):
    methods: list[str] = doc_field("Every request and notification method the host may send.")
    notifications: list[str] = doc_field("Every notification method the server may send.")
    run_events: list[str] = doc_field("Every run/event type the server may send.")
    max_body_bytes: int = doc_field("The largest frame body the server accepts.")


class InitializeResult(Record):
    protocol_version: int = doc_field("The protocol version the server will speak.")
    server_info: ServerInfo = doc_field("Who the server is.")
    capabilities: ServerCapabilities = doc_field("What the server offers.")


class EmptyParams(Record):
    """No params: send {} or omit params."""


class CancelParams(Record):
    id: int | str = doc_field("The id of the request to cancel.")


# --- workers (what the supervisor reports of them: ``workers``) ------------


class WorkerTarget(Record):
    profile: str | None = doc_field("Profile name; null or absent means default.", None)
    worker_key: WorkerKey | None = doc_field("Isolation key for a separate worker process.", None)


# --- sessions --------------------------------------------------------------


class SessionStatusParams(Record):
    session_id: SessionId = doc_field("The session to describe.")
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)
    if_loaded: bool = doc_field(
        "Only report a session already loaded: never start a worker for this.", False
    )


class SessionInfo(Record):
    session_id: str = doc_field("The session id.")
    loaded: bool = doc_field("Whether a worker holds the session in memory.")
    running: bool = doc_field("Whether a run is in progress.")
    run_id: str | None = doc_field("The run in progress, if any.")
    profile: str | None = doc_field("The profile that owns the session.")
    model: str | None = doc_field("The session's model, once its agent is built.")
    message_count: int | None = doc_field("Messages in the session's conversation so far.")
    last_used_at: int | None = doc_field("When the session last started a run (ms since epoch).")
    reasoning_effort: ReasoningEffort | None = doc_field(
        "The reasoning effort run/start set for it; null: the profile's."
    )
    workspace: str | None = doc_field(
        "Its tools' working directory: run/start's, or the one stored with it; null: the worker's."
    )
    disabled_toolsets: list[str] | None = doc_field(
        "The toolsets run/start left out of its agent, beyond the profile's; null: none."
    )
    auto_approve: bool = doc_field(
        "Whether run/start's autoApprove is on: what would ask for approval runs unasked."
    )
    review_edits: bool = doc_field(
        "Whether run/start's reviewEdits is on: file edits wait for the host's approval."
    )

    @classmethod
    def unloaded(cls, session_id: str, profile: str | None) -> SessionInfo:
        """A session no worker holds."""
        return cls(session_id, False, False, None, profile, *(None,) * 6, False, False)


class SessionTarget(Record):
    session_id: SessionId = doc_field("The session.")
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SessionDestroyResult(Record):
    destroyed: bool = doc_field("False when the session was not loaded.")


class SessionSwitchModelParams(Record):
    session_id: SessionId = doc_field("The session; created (or resumed) when no worker holds it.")
    model: str = doc_field("The model for the session's next runs.")
    provider: str | None = doc_field("Its provider; the profile's default when absent.", None)
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SessionSwitchModelResult(Record):
    session_id: str = doc_field("The session.")
    model: str = doc_field("The model its next run uses.")
    provider: str | None = doc_field("The provider that model resolved to.")
    deferred: bool = doc_field("True when a run is in progress: it finishes on the old model.")


class SessionHistoryParams(Record):
    session_id: SessionId = doc_field("The session.")
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)
    limit: int | None = doc_field(
        "At most this many messages (1 to 1000), the newest before `before`; all when absent.",
        None,
    )
    before: int | None = doc_field(
        "Index (0 or more) of the message after the last one returned: the previous"
        " page's `firstIndex`; the end of the history when absent or past it.",
        None,
    )


class SessionHistoryResult(Record):
    session_id: str = doc_field("The session.")
    messages: list[JsonObject] = doc_field(
        "Its OpenAI-style messages as of its last finished turn (a run in progress adds"
        " its own when it ends), or the page of them asked for; loaded from the"
        " profile's session database when no worker holds the session."
    )
    message_count: int = doc_field("How many messages the whole history holds.")
    first_index: int = doc_field("Index in the whole history of messages[0] (0 without paging).")


GoalAction = Literal[
    "status", "set", "pause", "resume", "clear", "addSubgoal", "removeSubgoal", "clearSubgoals"
]


class SessionGoalParams(Record):
    session_id: SessionId = doc_field("The session.")
    action: GoalAction = doc_field("What to do with its goal (see protocol.md).")
    text: str | None = doc_field("The goal (set) or the subgoal (addSubgoal).", None)
    max_turns: int | None = doc_field(
        "set: the turn budget; the profile's goals.max_turns (20) otherwise.", None
    )
    index: int | None = doc_field("removeSubgoal: which one, from 1.", None)
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class GoalInfo(Record):
    goal: str | None = doc_field("The standing goal; null when the session has none.")
    status: Literal["active", "paused", "done"] | None = doc_field("Where it stands.")
    turns_used: int = doc_field("Turns judged against it so far.")
    max_turns: int | None = doc_field("Its turn budget.")
    subgoals: list[str] = doc_field("Criteria added to it, in order.")
    last_verdict: str | None = doc_field("The judge's last verdict: done, continue, wait ...")
    last_reason: str | None = doc_field("Why, in the judge's words.")


class SessionTitledNotification(Record):
    session_id: str = doc_field("The session.")
    title: str = doc_field("The title hermes gave it, as saved in the profile's database.")


class SessionListParams(Record):
    profile: str | None = doc_field("Profile to list; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SessionListResult(Record):
    sessions: list[SessionInfo] = doc_field("Sessions loaded in that worker (never starts one).")


# --- runs ------------------------------------------------------------------


class RunStartParams(Record):
    message: str = doc_field("The user's message for this turn.")
    session_id: SessionId | None = doc_field(
        "Session to continue or create; a new id when absent.", None
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field(
        "Run in a separate worker process of the profile.", None
    )
    instructions: str | None = doc_field("Extra system instructions for this session.", None)
    disabled_toolsets: list[str] | None = doc_field(
        "Toolsets the session's agent leaves out from this turn on, beyond the profile's"
        " agent.disabled_toolsets (kept for its later runs; [] leaves out none again), e.g."
        " a chat that runs and changes nothing. Each must be one of hermes' toolsets.",
        None,
    )
    reasoning_effort: ReasoningEffort | None = doc_field(
        "How hard the model reasons, from this turn on (kept for the session's later turns);"
        " none turns reasoning off. The profile's agent.reasoning_effort until set.",
        None,
    )
    conversation_history: list[JsonObject] | None = doc_field(
        "OpenAI-style messages to use as the history instead of the session's own.", None
    )
    model: str | None = doc_field("Model for a new session (profile default otherwise).", None)
    provider: str | None = doc_field(
        "Provider for a new session (profile default otherwise).", None
    )
    workspace: str | None = doc_field("Working directory for the session's tools.", None)
    source: str | None = doc_field("Where the message came from, stored with the session.", None)
    compression: CompressionMode | None = doc_field(
        "Who compresses the session's context when it nears the model's window: agent"
        " (hermes' own summary; the default) or host (compression/requested). Kept for"
        " the session's later runs.",
        None,
    )
    expand_commands: bool = doc_field(
        "Run a leading /skill or /bundle command (command/list) the way hermes' CLI does;"
        " false sends the message as typed.",
        True,
    )
    force_compress: bool = doc_field(
        "Compress the session's history before this turn, the way its compression setting says.",
        False,
    )
    expand_references: bool = doc_field(
        "Expand @file:, @folder:, @diff, @staged, @git: and @url: references the way"
        " hermes' CLI does; false sends the message as typed.",
        True,
    )
    images: list[ImageInput] | None = doc_field(
        "Images attached to the message: shown to the model itself when it sees images,"
        " else described to it by hermes' vision tool.",
        None,
    )
    auto_approve: bool | None = doc_field(
        "From this turn on, approve without asking the host what hermes would ask it to"
        " approve (hermes' per-session /yolo); false asks again. Kept for the session's later"
        " turns while a worker holds it; never stored. Hard blocks and approvals.deny still"
        " refuse.",
        None,
    )
    review_edits: bool | None = doc_field(
        "From this turn on, hold each edit hermes' file-edit tools (write_file, patch) would"
        " make until the host approves it, shown as a diff (approval/requested's edits);"
        " false writes unasked again. Kept for the session's later turns while a worker"
        " holds it; never stored.",
        None,
    )


class RunStartResult(Record):
    run_id: str = doc_field("The new run.")
    session_id: str = doc_field("The session it runs in.")


class SessionCompressParams(Record):
    session_id: SessionId = doc_field("A session a worker holds or the database knows.")
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)
    focus: str | None = doc_field(
        "What the summary should keep above all (hermes' /compress focus topic), at most"
        " 1000 characters.",
        None,
    )


class RunTarget(Record):
    run_id: str = doc_field("The run.")


class RunInterruptResult(Record):
    interrupted: bool = doc_field("False when the run had already finished.")


class RunSteerParams(Record):
    run_id: str = doc_field("The run.")
    text: str = doc_field("What the user adds while the agent works.")


class RunSteerResult(Record):
    accepted: bool = doc_field("False when the run had already finished or the text is blank.")


class RunError(Record):
    type: RunErrorKind = doc_field("Why the run failed; a stable snake_case string.")
    message: str = doc_field("Human-readable detail.")


class RunOutput(Record):
    final_response: str | None = doc_field("The assistant's final text.")
    message_count: int = doc_field("Messages in the conversation after the run.")
    api_calls: int | None = doc_field("Model calls made during the run.")
    usage: TokenUsage | None = doc_field(
        "Tokens the run's model calls used, as the provider reported them; null when the"
        " agent reports none.",
        default=None,
    )


class RunResultResult(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    status: Literal["running", "complete", "interrupted", "error"] = doc_field("Where it is.")
    result: RunOutput | None = doc_field("Set once the run has finished without error.")
    error: RunError | None = doc_field("Set when status is error.")


class RunTrigger(Record):
    type: TriggerKind = doc_field(
        "What started it: a background subagent or process that finished, or a cron job"
        " that came due (cron/tick)."
    )
    source_id: str = doc_field("The delegation's id, the background process's, or the job's.")
    message: str = doc_field(
        "What the agent is told of it: the turn's user message; a cron job's prompt."
    )


class RunStartedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number: 1, 2, 3 ... without gaps.")
    profile: str = doc_field("The profile it runs under.")
    model: str | None = doc_field("The model the agent uses.")
    trigger: RunTrigger | None = doc_field(
        "Set when the worker started the run itself, to hand the session background work"
        " that finished, or to run a cron job that came due; null for a host's run."
    )


class RunDeltaNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    text: str = doc_field("The next piece of assistant text.")


class RunEventNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    event: RunEvent = doc_field("What happened; hosts ignore an event type they do not know.")


class RunCompletedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number; always the run's last.")
    status: RunStatus = doc_field("How the run ended.")
    result: RunOutput | None = doc_field("The outcome, unless status is error.")
    error: RunError | None = doc_field("Why it failed, when status is error.")
