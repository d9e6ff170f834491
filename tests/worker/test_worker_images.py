"""Attached images with fake hermes functions: which requests are refused, how the
native and text modes shape the message, and what is skipped and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.events import ImagesAttachedEvent
from hermes_stdio.protocol.inputs import ImageInput
from hermes_stdio.wire import ErrorType, RpcError
from hermes_stdio.worker.images import Attachment, HermesImages, attach, checked


def test_each_image_is_checked_and_data_decoded(tmp_path: Path) -> None:
    shot = tmp_path / "a.png"
    shot.write_bytes(b"x")
    found = checked(
        [
            ImageInput(path=str(shot)),
            ImageInput(data="aGk=", mime_type="image/jpeg"),
            ImageInput(url="https://example.com/b.png"),
        ]
    )
    assert found == [
        Attachment("images[0]", path=str(shot)),
        Attachment("images[1]", data=b"hi", ext=".jpg"),
        Attachment("images[2]", url="https://example.com/b.png"),
    ]
    assert checked(None) == []


def test_the_second_bad_image_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(RpcError) as err:
        checked([ImageInput(url="https://example.com/a.png"), ImageInput(path=str(tmp_path))])
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.images[1].path"  # a directory is no file


class Fake:
    def __init__(self, mode: str, *, readable: bool = True) -> None:
        self.cached: list[tuple[bytes, str]] = []
        self.readable = readable
        self.hermes = HermesImages(mode, self.cache, self.parts, self.describe)  # type: ignore[arg-type]

    def cache(self, data: bytes, ext: str) -> str:
        if not data.startswith(b"IMG"):
            raise ValueError("not an image")
        self.cached.append((data, ext))
        return f"/cache/{len(self.cached)}{ext}"

    def parts(
        self, text: str, paths: list[str], urls: list[str]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        if not self.readable:
            return [{"type": "text", "text": text}], paths
        images = [{"type": "image_url", "image_url": {"url": ref}} for ref in [*paths, *urls]]
        return [{"type": "text", "text": text}, *images], []

    def describe(self, ref: str) -> str:
        if "url" in ref:
            raise ValueError("No LLM provider configured for task=vision")
        return f"a picture at {ref}"


def test_native_mode_sends_content_parts_and_skips_bytes_that_are_no_image() -> None:
    fake = Fake("native")
    items = [
        Attachment("images[0]", data=b"IMG1", ext=".png"),
        Attachment("images[1]", data=b"<html>"),
        Attachment("images[2]", url="https://x/url.png"),
    ]
    message, fields = attach("look", items, fake.hermes)
    assert message == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "/cache/1.png"}},
        {"type": "image_url", "image_url": {"url": "https://x/url.png"}},
    ]
    assert fields == ImagesAttachedEvent(
        mode="native", attached=2, skipped=["images[1]: not an image"]
    )


def test_text_mode_puts_descriptions_first_and_says_why_one_failed() -> None:
    fake = Fake("text")
    items = [Attachment("images[0]", path="/p.png"), Attachment("images[1]", url="https://x/url")]
    message, fields = attach("what?", items, fake.hermes)
    assert isinstance(message, str)
    assert message.startswith("[The user attached an image. Here's what it contains:\n")
    assert "a picture at /p.png" in message and message.endswith("\n\nwhat?")
    assert fields == ImagesAttachedEvent(
        mode="text",
        attached=1,
        skipped=["images[1]: No LLM provider configured for task=vision"],
    )


def test_native_mode_falls_back_to_descriptions_when_no_image_could_be_read() -> None:
    message, fields = attach(
        "hi", [Attachment("images[0]", path="/p.png")], Fake("native", readable=False).hermes
    )
    assert fields.mode == "text" and fields.attached == 1
    assert isinstance(message, str) and message.endswith("hi")
