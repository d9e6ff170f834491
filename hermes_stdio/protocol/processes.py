"""Background processes a session's agent started (a terminal command run with
``background: true``, e.g. a dev server). Names follow ``types``: snake_case
here, camelCase on the wire.
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
