"""hermes' file checkpoints: snapshots of a project directory taken before the agent
changes it, to list, compare with and restore. Names follow ``types``: snake_case here,
camelCase on the wire.
"""

from __future__ import annotations

from .names import WorkerKey
from .record import Record, doc_field


class CheckpointListParams(Record):
    directory: str = doc_field("The project directory (absolute) whose checkpoints to list.")
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class CheckpointInfo(Record):
    hash: str = doc_field("Names the checkpoint in checkpoint/diff and checkpoint/restore.")
    short_hash: str = doc_field("Its first characters, for display.")
    created_at: int | None = doc_field("When it was taken (ms since the epoch).")
    reason: str = doc_field("Why, e.g. before write_file, or a pre-rollback snapshot.")
    files_changed: int = doc_field("Files that differ from the checkpoint before it.")
    insertions: int = doc_field("Lines added since the checkpoint before it.")
    deletions: int = doc_field("Lines removed since the checkpoint before it.")


class CheckpointListResult(Record):
    enabled: bool = doc_field(
        "Whether the profile's agents take checkpoints (checkpoints.enabled)."
    )
    directory: str = doc_field("The directory, normalised.")
    checkpoints: list[CheckpointInfo] = doc_field(
        "Newest first, at most checkpoints.max_snapshots."
    )


class CheckpointDiffParams(Record):
    directory: str = doc_field("The project directory (absolute).")
    hash: str = doc_field("The checkpoint to compare the directory's files with.")
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class CheckpointDiffResult(Record):
    stat: str = doc_field("git diff --stat of the checkpoint against the files now.")
    diff: str = doc_field("The unified diff from the checkpoint to the files now.")


class CheckpointRestoreParams(Record):
    directory: str = doc_field("The project directory (absolute).")
    hash: str = doc_field("The checkpoint to restore.")
    path: str | None = doc_field(
        "Only this file (relative to directory); the whole directory when absent.", default=None
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class CheckpointRestoreResult(Record):
    restored_to: str = doc_field("The checkpoint's short hash.")
    reason: str = doc_field("The restored checkpoint's reason.")
    directory: str = doc_field("The directory, normalised.")
    path: str | None = doc_field("The file restored; null for the whole directory.")
