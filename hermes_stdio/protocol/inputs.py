"""What a host can give a turn besides its text: images. Names follow ``types``:
snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from .record import Record, doc_field


class ImageInput(Record):
    path: str | None = doc_field("An image file the worker can read.", None)
    data: str | None = doc_field("The image itself, base64-encoded; needs mimeType.", None)
    mime_type: str | None = doc_field(
        "With data: image/png, image/jpeg, image/gif or image/webp.", None
    )
    url: str | None = doc_field("An http(s) address the model's provider fetches.", None)
