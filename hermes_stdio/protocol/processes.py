"""Background work a session's agent started: processes (a terminal command run
with ``background: true``, e.g. a dev server) and subagents (an async
``delegate_task``). Names follow ``types``: snake_case here, camelCase on the
wire.
"""

from __future__ import annotations

from typing import Literal

from .names import SessionId, WorkerKey
from .record import Record, doc_field


class ProcessInfo(Record):
    process_id: str = doc_field("hermes' id for it, as the agent's process tool names it.")
    command: str = doc_field("The command (its first 200 characters).")
    cwd: str | None = doc_field("Where it runs.")
    pid: int | None = doc_field("Its OS process id.")
    status: Literal["running", "exited"] = doc_field("Whether it still runs.")
    exit_code: int | None = doc_field("How it exited; null while it runs.")
    uptime_s: int = doc_field("Seconds since it started.")
    output_tail: str = doc_field("The end of its output (at most 4,000 characters).")


class ProcessStartedNotification(Record):
    session_id: SessionId = doc_field("The session whose agent started it.")
    process: ProcessInfo = doc_field(
        "The process as it started (status running, or exited if it ended at once)."
    )


class ProcessExitedNotification(Record):
    session_id: SessionId = doc_field("The session whose agent started it.")
    process: ProcessInfo = doc_field("The process as it ended (status exited).")


class ProcessListResult(Record):
    processes: list[ProcessInfo] = doc_field("Running ones and recently finished ones.")


class ProcessKillParams(Record):
    session_id: SessionId = doc_field("The session whose agent started it.")
    process_id: str = doc_field("The process, from process/list.")
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class ProcessKillResult(Record):
    killed: bool = doc_field(
        "False when the session started no such process or it had already exited."
    )


class SubagentInfo(Record):
    subagent_id: str = doc_field("hermes' delegation id, as delegate_task's result names it.")
    goal: str = doc_field("What it was asked to do (its first 200 characters).")
    status: str = doc_field(
        "running while at work; else how it ended, as hermes says it"
        " (completed, interrupted, error, ...)."
    )
    model: str | None = doc_field("The model it was asked to use; null for the parent's.")
    dispatched_at: int = doc_field("When it started (ms since the epoch).")
    completed_at: int | None = doc_field("When it ended (ms since the epoch); null while running.")


class SubagentStartedNotification(Record):
    session_id: SessionId = doc_field("The session whose agent delegated to it.")
    subagent: SubagentInfo = doc_field(
        "The subagent as it started (status running, or how it ended if it ended at once)."
    )


class SubagentEndedNotification(Record):
    session_id: SessionId = doc_field("The session whose agent delegated to it.")
    subagent: SubagentInfo = doc_field("The subagent as it ended: status and completedAt.")


class SubagentProgress(Record):
    kind: str = doc_field(
        "hermes' name for what it did: subagent.start, subagent.thinking, subagent.tool,"
        " subagent.text, subagent.progress or subagent.complete (a later hermes may add more)."
    )
    name: str | None = doc_field("subagent.tool: the tool it called; else null.")
    preview: str | None = doc_field(
        "What hermes shows for it: the goal (start), the text it streamed (text), its"
        " thinking, the tool's argument preview, a summary of its recent tools (progress),"
        " its summary or error (complete); null when hermes gives none."
    )
    child_id: str | None = doc_field(
        "hermes' id for this subagent: one per child agent (each task of a batch, and each"
        " subagent a subagent starts, has its own)."
    )
    parent_child_id: str | None = doc_field(
        "The childId of the subagent that started this one; null for one the session's"
        " agent started."
    )
    depth: int = doc_field(
        "0 for a subagent the session's agent started, 1 for one of its own subagents, ..."
    )
    task_index: int = doc_field("Which of the delegate_task's goals it works on (from 0).")
    task_count: int = doc_field("How many goals that delegate_task gave (a batch: several).")
    tool_count: int | None = doc_field("How many tools it has called so far.")
    child_session_id: str | None = doc_field(
        "The subagent's own session row in the profile's database, once hermes made it."
    )
    status: str | None = doc_field(
        "subagent.complete: how it ended, as hermes says it (completed, failed, error,"
        " timeout, interrupted, ...); else null."
    )
    duration_s: float | None = doc_field("subagent.complete: seconds it ran; else null.")


class SubagentProgressNotification(Record):
    session_id: SessionId = doc_field("The session whose agent delegated to it.")
    subagent_id: str = doc_field("Its delegation id, as subagent/started named it.")
    progress: SubagentProgress = doc_field("What it did.")


class SubagentListResult(Record):
    subagents: list[SubagentInfo] = doc_field("Running ones and recently finished ones.")


class SubagentInterruptResult(Record):
    interrupted: int = doc_field(
        "How many of the session's subagents still at work were told to stop (0: none was)."
    )
