"""What a host can give a turn besides its text: images, and the ``@``
references a user is typing (``reference/complete``). Names follow ``types``:
snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated, Literal

from .model import Name
from .names import SessionId, WorkerKey
from .record import Record, doc_field

MAX_REFERENCE_TEXT = 4096  # one reference being typed, never a whole message
MAX_COMPLETIONS = 200

CompletionKind = Literal["reference", "file", "folder"]


class ImageInput(Record):
    path: str | None = doc_field("An image file the worker can read.", None)
    data: str | None = doc_field("The image itself, base64-encoded; needs mimeType.", None)
    mime_type: str | None = doc_field(
        "With data: image/png, image/jpeg, image/gif or image/webp.", None
    )
    url: str | None = doc_field("An http(s) address the model's provider fetches.", None)


class ReferenceCompleteParams(Record):
    text: Annotated[str, Name(MAX_REFERENCE_TEXT)] = doc_field(
        "The reference being typed, from its @ to the cursor: @, @fi, @file:src/ma, @conf."
    )
    session_id: SessionId | None = doc_field(
        "Complete in this session's workspace (the one its next turn uses).", None
    )
    workspace: str | None = doc_field(
        "Complete in this directory (absolute, existing); wins over the session's.", None
    )
    limit: int = doc_field(f"At most this many items (1 to {MAX_COMPLETIONS}).", 50)
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class ReferenceCompletion(Record):
    text: str = doc_field("The whole reference to put in place of the typed text.")
    label: str = doc_field("What to show: the keyword, or the file's or folder's name.")
    detail: str | None = doc_field(
        "A keyword's meaning, or the folder (workspace-relative) of a file found by"
        " name; null otherwise, and for such a file at the workspace's top."
    )
    kind: CompletionKind = doc_field(
        "reference: a keyword (@diff, @file:); file; folder: in @file: mode its"
        " text ends with / to go on typing in it."
    )


class ReferenceCompleteResult(Record):
    items: list[ReferenceCompletion] = doc_field("Best first.")
    incomplete: bool = doc_field(
        "More matched than limit, or not every file was searched: typing more narrows them."
    )
    workspace: str = doc_field("The directory the paths are relative to.")
