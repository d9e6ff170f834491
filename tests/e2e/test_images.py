"""Images attached to a run, through the real binary and real hermes-agent: shown to
the model as content parts when hermes says it sees images, else described first by
hermes' vision tool; bad images are refused up front, unusable ones skipped."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost


def png() -> bytes:
    """A valid 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def encoded() -> str:
    return base64.b64encode(png()).decode()


def attached(host: HostClient, run_id: str) -> dict[str, Any]:
    [event] = [
        n.params["event"]
        for n in host.run_notifications(run_id)
        if n.method == "run/event" and n.params["event"]["type"] == "images.attached"
    ]
    return dict(event)


def turn_content(llm: ScriptedLLM, marker: str) -> Any:
    """The user message content of the model request for the turn whose text has
    ``marker`` (hermes' title and vision calls go to the same scripted model)."""
    for body in llm.requests:
        content = body["messages"][-1]["content"]
        if body.get("tools") and marker in str(content):
            return content
    raise AssertionError(f"no turn request mentions {marker!r}")


def sees_images(home: Path, start_host: StartHost, supported: bool) -> HostClient:
    """A host whose default profile's model is declared to see images, or not (hermes
    would otherwise look the test model up on models.dev)."""
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["model"]["supports_vision"] = supported
    # hermes' vision tool does not fall back to a custom main provider by itself.
    scripted = config["model"]["base_url"]
    vision = {"provider": "custom", "base_url": scripted, "model": "test-model"}
    config["auxiliary"]["vision"] = vision
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    return host


def test_a_model_that_sees_images_gets_them_as_content_parts_after_the_text(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    host = sees_images(home, start_host, True)
    on_disk = tmp_path / "shot.png"
    on_disk.write_bytes(png())
    llm.enqueue(Reply.text(["Two red pixels."]))
    images = [{"data": encoded(), "mimeType": "image/png"}, {"path": str(on_disk)}]
    run = host.request("run/start", {"message": "what are these?", "images": images})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert attached(host, run["runId"]) == {
        "type": "images.attached",
        "mode": "native",
        "attached": 2,
        "skipped": [],
    }
    parts = turn_content(llm, "what are these?")
    assert parts[0]["type"] == "text" and parts[0]["text"].startswith("what are these?")
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert urls == [f"data:image/png;base64,{encoded()}"] * 2
    assert len(list((home / "cache" / "images").iterdir())) == 1  # the data, cached


def test_otherwise_hermes_vision_tool_describes_each_image_before_the_text(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    host = sees_images(home, start_host, False)
    llm.enqueue(Reply.text(["A SINGLE RED PIXEL"]), Reply.text(["It is red."]))
    images = [{"data": encoded(), "mimeType": "image/png"}]
    run = host.request("run/start", {"message": "what is this?", "images": images})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert attached(host, run["runId"])["mode"] == "text"
    assert attached(host, run["runId"])["attached"] == 1
    vision_request = llm.requests[0]["messages"][-1]["content"]
    assert any(p.get("type") == "image_url" for p in vision_request)  # the pixels, to vision
    text = turn_content(llm, "what is this?")
    assert isinstance(text, str) and "A SINGLE RED PIXEL" in text
    assert text.endswith("what is this?")


def test_bytes_that_are_not_an_image_are_skipped_and_the_run_goes_on(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["fine"]))
    host = sees_images(home, start_host, False)
    fake = base64.b64encode(b"<html>not a picture</html>").decode()
    run = host.request(
        "run/start", {"message": "look", "images": [{"data": fake, "mimeType": "image/png"}]}
    )
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    event = attached(host, run["runId"])
    assert event["attached"] == 0
    assert len(event["skipped"]) == 1 and event["skipped"][0].startswith("images[0]: ")
    assert turn_content(llm, "look") == "look"


@pytest.mark.parametrize(
    ("image", "field"),
    [
        ({}, "params.images[0]"),
        ({"path": "/x.png", "url": "https://example.com/a.png"}, "params.images[0]"),
        ({"path": "/no/such/file.png"}, "params.images[0].path"),
        ({"data": "not base64!", "mimeType": "image/png"}, "params.images[0].data"),
        ({"data": "aGk=", "mimeType": "text/plain"}, "params.images[0].mimeType"),
        ({"data": "aGk="}, "params.images[0].mimeType"),
        ({"url": "file:///etc/passwd"}, "params.images[0].url"),
    ],
)
def test_a_bad_image_is_refused_with_invalid_params_naming_the_field(
    host: HostClient, image: dict[str, Any], field: str
) -> None:
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "look", "images": [image]})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == field


def test_the_agents_vision_tool_finds_a_relative_image_path_in_the_sessions_workspace(
    host: HostClient, llm: ScriptedLLM, ws: Path
) -> None:
    (ws / "shot.png").write_bytes(png())  # as if a command of the turn had saved it
    llm.enqueue(
        Reply.tool_call("vision_analyze", {"image_url": "shot.png", "question": "what?"}),
        Reply.text(["A RED DOT"]),  # hermes' vision call
        Reply.text(["done"]),
    )
    run = host.request("run/start", {"message": "look at it", "workspace": str(ws)})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"

    [result] = [
        json.loads(n.params["event"]["result"])
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event" and n.params["event"]["type"] == "tool.completed"
    ]
    assert result == {"success": True, "analysis": "A RED DOT"}
    assert encoded() in json.dumps(llm.requests[1]["messages"])  # the image itself went
