"""What the supervisor reports about its workers and worker template, and what a
worker tells the supervisor when it is ready (internal to the server).

Contract: ``supervisor/status`` (``SupervisorStatusResult``), ``worker/restart``'s
result, the ``worker/started`` and ``worker/exited`` notifications, the internal
``worker/ready`` and ``worker/background``'s result;
their states and reasons are the Literal types here. Requests that target a
worker take ``types.WorkerTarget``.
"""

from __future__ import annotations

from typing import Literal

from .record import Record, doc_field
from .toolbox import McpServerInfo

WorkerState = Literal["starting", "ready", "stopping", "exited", "backoff"]
StartMode = Literal["forked", "spawned"]
TemplateState = Literal["starting", "ready", "unsafe", "exited", "failed"]
# Why a worker stopped: the supervisor's reasons, or "crashed" when it did not ask.
StopReason = Literal["idle", "limit", "restart", "shutdown", "start_failed", "deleted", "renamed"]
ExitReason = Literal[StopReason, "crashed"]


class WorkerInfo(Record):
    profile: str = doc_field("The Hermes profile the worker serves.")
    worker_key: str | None = doc_field("The isolation key; null for the profile's main worker.")
    pid: int | None = doc_field("OS process id; null when no process is running.")
    state: WorkerState = doc_field("Lifecycle state.")
    restarts: int = doc_field("Unexpected exits so far.")
    started_at: int | None = doc_field("When the current process started (ms since epoch).")
    last_used_at: int = doc_field("When a request was last routed to it (ms since epoch).")
    sessions: int = doc_field("Sessions loaded in the worker, as routed by the supervisor.")
    running_runs: int = doc_field("Runs in flight in the worker.")
    start_mode: StartMode | None = doc_field(
        "How the current process started: forked from the worker template, or spawned"
        " cold; null when no process is running.",
        None,
    )
    fork_fallback: str | None = doc_field(
        "Why the current process was spawned cold although the template is enabled.", None
    )


class TemplateInfo(Record):
    state: TemplateState = doc_field("Lifecycle state of the worker template.")
    pid: int | None = doc_field("Its process id; null when it is not running.")
    preload_ms: float | None = doc_field("How long its imports took; null until ready.")
    modules: int | None = doc_field("Modules it holds imported; null until ready.")
    forks: int = doc_field("Workers it has forked so far.")
    restarts: int = doc_field("Times it was started again after exiting on its own (at most 3).")
    problem: str | None = doc_field("Why it is unsafe or failed; null otherwise.")


class SupervisorStatusResult(Record):
    pid: int = doc_field("The supervisor's process id.")
    uptime_ms: int = doc_field("Milliseconds since the supervisor started.")
    protocol_version: int = doc_field("The protocol version in use.")
    hermes_home: str = doc_field("The Hermes home directory (the default profile).")
    workers: list[WorkerInfo] = doc_field("Every worker slot the supervisor knows.")
    template: TemplateInfo | None = doc_field(
        "The worker template; null when switched off (--no-worker-template) or not"
        " supported (it needs Linux).",
        None,
    )


class WorkerRestartResult(Record):
    worker: WorkerInfo = doc_field("The worker after the restart.")


class WorkerStartedNotification(Record):
    worker: WorkerInfo = doc_field(
        "The worker, now ready (state ready): its pid, and whether it was forked or spawned cold."
    )


class WorkerExitedNotification(Record):
    profile: str = doc_field("The profile the worker served.")
    worker_key: str | None = doc_field("Its isolation key.")
    pid: int = doc_field("The process id that exited.")
    exit_code: int | None = doc_field(
        "Exit status; null when killed by a signal or when the status is unknown."
    )
    signal: str | None = doc_field("Signal name (e.g. SIGKILL) when killed by one.")
    expected: bool = doc_field("True when the supervisor asked it to stop.")
    reason: ExitReason = doc_field(
        "Why: idle (--worker-idle-timeout), limit (stopped to make room under"
        " --max-workers), restart (worker/restart), shutdown, start_failed (it did not"
        " get ready), deleted (its profile was, by profile/delete), renamed (by"
        " profile/rename), or crashed (the supervisor"
        " did not ask it to stop)."
    )


# --- supervisor <-> worker (internal) --------------------------------------


class WorkerReadyNotification(Record):
    protocol_version: int = doc_field("Worker protocol version; must equal the supervisor's.")
    pid: int = doc_field("Worker process id.")
    profile: str = doc_field("The profile it serves.")
    python: str = doc_field("The Python executable running the worker.")
    start_mode: StartMode = doc_field("forked from the template, or spawned cold.", "spawned")
    fork_fallback: str | None = doc_field(
        "Why a forked worker replaced itself with a cold one.", None
    )


class WorkerSetOptOutParams(Record):
    notifications: list[str] = doc_field(
        "Notifications the host opted out of: not sent (a run's not numbered either)."
    )
    run_events: list[str] = doc_field("run/event types the host opted out of: the same.")


class WorkerBackgroundResult(Record):
    sessions: list[str] = doc_field(
        "The sessions whose background work goes on: a background process still running,"
        " a subagent still at work, or a finished one's result waiting for its run."
    )


class WorkerCommandsChangedNotification(Record):
    fingerprint: str = doc_field(
        "A digest of the files behind the profile's slash commands (each SKILL.md, bundle"
        " file and config.yaml: path, size, times, inode): equal for equal files, whichever"
        " of the profile's workers computed it."
    )


class WorkerMcpChangedNotification(Record):
    servers: list[McpServerInfo] = doc_field(
        "The worker's MCP servers, as mcp/status gives them now that they changed."
    )
