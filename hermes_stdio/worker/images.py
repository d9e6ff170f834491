"""Images attached to a turn: checked when the run is asked for, shown to the model
the way hermes' CLI shows a pasted image.

Contract:
- ``checked(images)`` turns ``run/start``'s ``images`` into ``Attachment``s or
  raises ``invalid_params`` naming the field: each image has exactly one of
  ``path`` (an existing file), ``data`` (base64, with an image ``mimeType``)
  or ``url`` (http or https).
- ``attach(message, attachments, hermes)`` runs on the run's thread, with
  hermes' functions in ``hermes`` (``HermesImages``). Data is saved to the
  profile's image cache first (hermes refuses bytes that are not an image:
  that image is skipped). In ``native`` mode (hermes decides: the model sees
  images, or the profile's ``agent.image_input_mode`` says so) the message
  becomes OpenAI-style content parts, text first; in ``text`` mode, or when no
  image could be attached natively, each image is described by hermes'
  vision tool and the descriptions go before the text. It returns the
  message to send and the ``images.attached`` event: ``mode``,
  ``attached`` (how many) and ``skipped`` (which, and why). ``describer``
  wraps hermes' vision tool as ``HermesImages.describe``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..protocol import events as ev
from ..protocol.inputs import ImageInput
from ..wire import ErrorType, RpcError

EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


@dataclass(frozen=True)
class Attachment:
    label: str  # how the request named it, e.g. images[1]
    path: str | None = None
    url: str | None = None
    data: bytes | None = None
    ext: str = ".png"


@dataclass(frozen=True)
class HermesImages:
    mode: Literal["native", "text"]
    cache_bytes: Callable[[bytes, str], str]  # raises ValueError for non-images
    native_parts: Callable[[str, list[str], list[str]], tuple[list[dict[str, Any]], list[str]]]
    describe: Callable[[str], str]  # raises ValueError saying why it could not


def checked(images: list[ImageInput] | None) -> list[Attachment]:
    found: list[Attachment] = []
    for i, image in enumerate(images or []):
        field = f"params.images[{i}]"
        given = [name for name in ("path", "data", "url") if getattr(image, name) is not None]
        if len(given) != 1:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"{field} needs exactly one of path, data or url",
                field=field,
            )
        if image.path is not None:
            if not os.path.isfile(image.path):
                raise RpcError(
                    ErrorType.INVALID_PARAMS, f"no such file: {image.path!r}", field=f"{field}.path"
                )
            found.append(Attachment(f"images[{i}]", path=image.path))
        elif image.url is not None:
            if not image.url.startswith(("http://", "https://")):
                raise RpcError(
                    ErrorType.INVALID_PARAMS, "url must be http or https", field=f"{field}.url"
                )
            found.append(Attachment(f"images[{i}]", url=image.url))
        else:
            ext = EXTENSIONS.get(image.mime_type or "")
            if ext is None:
                raise RpcError(
                    ErrorType.INVALID_PARAMS,
                    f"mimeType must be one of {', '.join(EXTENSIONS)}",
                    field=f"{field}.mimeType",
                )
            try:
                raw = base64.b64decode(image.data or "", validate=True)
            except (binascii.Error, ValueError) as exc:
                raise RpcError(
                    ErrorType.INVALID_PARAMS, f"data is not base64: {exc}", field=f"{field}.data"
                ) from exc
            found.append(Attachment(f"images[{i}]", data=raw, ext=ext))
    return found


def attach(
    message: str, attachments: list[Attachment], hermes: HermesImages
) -> tuple[str | list[dict[str, Any]], ev.ImagesAttachedEvent]:
    skipped: list[str] = []
    refs: list[tuple[Attachment, str]] = []  # each image and the path or url hermes reads
    for item in attachments:
        if item.data is not None:
            try:
                refs.append((item, hermes.cache_bytes(item.data, item.ext)))
            except ValueError as exc:
                skipped.append(f"{item.label}: {exc}")
        else:
            refs.append((item, item.path or item.url or ""))
    if hermes.mode == "native" and refs:
        paths = [ref for item, ref in refs if item.url is None]
        urls = [ref for item, ref in refs if item.url is not None]
        parts, unread = hermes.native_parts(message, paths, urls)
        images = sum(1 for part in parts if part.get("type") == "image_url")
        if images:
            labels = {ref: item.label for item, ref in refs}
            skipped += [f"{labels.get(path, path)}: could not be read" for path in unread]
            return parts, ev.ImagesAttachedEvent(mode="native", attached=images, skipped=skipped)
    described: list[str] = []
    for item, ref in refs:
        try:
            description = hermes.describe(ref)
        except ValueError as exc:
            skipped.append(f"{item.label}: {exc}")
            continue
        described.append(
            f"[The user attached an image. Here's what it contains:\n{description}]\n"
            f"[If you need a closer look, use vision_analyze with image_url: {ref}]"
        )
    text = "\n\n".join([*described, message] if message else described)
    event = ev.ImagesAttachedEvent(mode="text", attached=len(described), skipped=skipped)
    return text or message, event


DESCRIBE = (
    "Describe everything visible in this image in thorough detail. Include any text,"
    " code, data, objects, people, layout, colors, and any other notable visual information."
)


def describer(vision_analyze_tool: Callable[..., Any]) -> Callable[[str], str]:
    """``HermesImages.describe`` from hermes' async ``vision_analyze_tool``."""

    def describe(ref: str) -> str:
        try:
            analysis = vision_analyze_tool(image_url=ref, user_prompt=DESCRIBE)
            found = json.loads(asyncio.run(analysis))
        except Exception as exc:
            raise ValueError(f"the vision tool failed: {exc!r}") from exc
        if not found.get("success"):
            raise ValueError(str(found.get("error") or "the vision tool failed"))
        return str(found.get("analysis") or "")

    return describe
