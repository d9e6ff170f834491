"""A session's subagent progress on a real FrameWriter: a subagent's streamed reply
coalesces as a run's deltas do (same child and fields, unwritten, capped), and every
other report is sent as it came, in order."""

from __future__ import annotations

import json
import os
import threading
from typing import TYPE_CHECKING, Any

from test_worker_outbox import BlockingBody
from worker_service_helpers import WAIT

from hermes_stdio.protocol import processes as pr
from hermes_stdio.transport import FrameWriter
from hermes_stdio.wire import FrameDecoder
from hermes_stdio.wire.jsonrpc import encode_notification
from hermes_stdio.worker.background import TAIL_CHARS
from hermes_stdio.worker.service import WorkerService

if TYPE_CHECKING:  # at run time "conftest" may be another folder's (tests/transport has one)
    from conftest import Harness


class WriterPeer:
    """What the worker's Peer offers the service: notifications and raw bodies through
    one FrameWriter."""

    def __init__(self, writer: FrameWriter) -> None:
        self.writer = writer

    def notify(self, method: str, params: Any) -> bool:
        return self.writer.send(encode_notification(method, params))

    def send_raw(self, body: bytes) -> bool:
        return self.writer.send(body)


def progress(kind: str, preview: str, child: str = "sa-0", tools: int = 0) -> pr.SubagentProgress:
    return pr.SubagentProgress(
        kind=kind,
        name="terminal" if kind == "subagent.tool" else None,
        preview=preview,
        child_id=child,
        parent_child_id=None,
        depth=0,
        task_index=0,
        task_count=1,
        tool_count=tools,
        child_session_id="child_sess",
        status=None,
        duration_s=None,
    )


def service_on_pipe(harness: Harness) -> tuple[WorkerService, FrameWriter, int, int]:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd)
    service = harness.service
    service.peer = WriterPeer(writer)  # type: ignore[assignment]
    return service, writer, read_fd, write_fd


def frames(read_fd: int, write_fd: int) -> list[dict[str, Any]]:
    os.close(write_fd)
    decoder = FrameDecoder()
    found = []
    while chunk := os.read(read_fd, 1 << 16):
        found += decoder.feed(chunk)
    os.close(read_fd)
    return [json.loads(f.body)["params"] for f in found]


def hold(writer: FrameWriter) -> tuple[BlockingBody, threading.Thread]:
    """Keep the writer busy, as a host that has not read yet does."""
    blocker = BlockingBody()
    busy = threading.Thread(target=writer.send_lazy, args=(blocker,))
    busy.start()
    assert blocker.rendering.wait(WAIT)
    return blocker, busy


def test_a_subagents_streamed_text_coalesces_while_the_host_lags_and_nothing_else_does(
    harness: Harness,
) -> None:
    service, writer, read_fd, write_fd = service_on_pipe(harness)
    tell = service._subagent_progress
    tell("sess_1", "deleg_1", progress("subagent.text", "first "))  # idle: written at once
    blocker, busy = hold(writer)
    for piece in ("a", "b", "c"):
        tell("sess_1", "deleg_1", progress("subagent.text", piece))
    tell("sess_1", "deleg_1", progress("subagent.text", "x", child="sa-1"))  # another child
    tell("sess_1", "deleg_1", progress("subagent.text", "d"))
    tell("sess_1", "deleg_2", progress("subagent.text", "e"))  # another delegation
    tell("sess_1", "deleg_2", progress("subagent.text", "f", tools=1))  # a field changed
    tell("sess_1", "deleg_2", progress("subagent.tool", "ls"))
    tell("sess_1", "deleg_2", progress("subagent.tool", "ls"))  # only text merges
    tell("sess_1", "deleg_2", progress("subagent.text", "g", tools=1))
    assert writer.merged == 2
    blocker.release.set()
    busy.join(WAIT)

    sent = [p for p in frames(read_fd, write_fd) if "subagentId" in p]
    assert [(p["subagentId"], p["progress"]["kind"], p["progress"]["preview"]) for p in sent] == [
        ("deleg_1", "subagent.text", "first "),
        ("deleg_1", "subagent.text", "abc"),
        ("deleg_1", "subagent.text", "x"),
        ("deleg_1", "subagent.text", "d"),
        ("deleg_2", "subagent.text", "e"),
        ("deleg_2", "subagent.text", "f"),
        ("deleg_2", "subagent.tool", "ls"),
        ("deleg_2", "subagent.tool", "ls"),
        ("deleg_2", "subagent.text", "g"),
    ]
    # Pinned wire form: a merged report is the first one with the joined text.
    assert sent[1] == {
        "sessionId": "sess_1",
        "subagentId": "deleg_1",
        "progress": {
            "kind": "subagent.text",
            "name": None,
            "preview": "abc",
            "childId": "sa-0",
            "parentChildId": None,
            "depth": 0,
            "taskIndex": 0,
            "taskCount": 1,
            "toolCount": 0,
            "childSessionId": "child_sess",
            "status": None,
            "durationS": None,
        },
    }


def test_a_coalesced_preview_never_grows_past_the_preview_limit(harness: Harness) -> None:
    service, writer, read_fd, write_fd = service_on_pipe(harness)
    blocker, busy = hold(writer)
    piece = "y" * 1500
    for _ in range(5):
        service._subagent_progress("sess_1", "deleg_1", progress("subagent.text", piece))
    blocker.release.set()
    busy.join(WAIT)

    previews = [p["progress"]["preview"] for p in frames(read_fd, write_fd) if "progress" in p]
    assert [len(p) for p in previews] == [3000, 3000, 1500]
    assert all(len(p) <= TAIL_CHARS for p in previews)


def test_a_fast_subagent_stream_lingers_as_a_runs_deltas_do_and_leaves_before_what_follows(
    harness: Harness,
) -> None:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd, handoff=True, linger_s=60.0)
    service = harness.service
    service.peer = WriterPeer(writer)  # type: ignore[assignment]
    tell = service._subagent_progress
    tell("sess_1", "deleg_1", progress("subagent.text", "a"))  # nothing written lately: at once
    assert writer.frames_written == 1
    tell("sess_1", "deleg_1", progress("subagent.text", "b"))  # right after: waits, merging
    tell("sess_1", "deleg_1", progress("subagent.text", "c"))
    assert writer.frames_written == 1
    tell("sess_1", "deleg_1", progress("subagent.tool", "ls"))  # takes what waits, in order
    tell("sess_1", "deleg_1", progress("subagent.text", "z", child="sa-1"))  # its own stream
    assert writer.frames_written == 4
    assert writer.wait_idle(WAIT)
    writer.close()

    sent = [(p["progress"]["childId"], p["progress"]["preview"]) for p in frames(read_fd, write_fd)]
    assert sent == [("sa-0", "a"), ("sa-0", "bc"), ("sa-0", "ls"), ("sa-1", "z")]


def test_what_the_host_opted_out_of_is_never_written(harness: Harness) -> None:
    from hermes_stdio.protocol.opt_out import OptOut

    service, _writer, read_fd, write_fd = service_on_pipe(harness)
    service.opt_out = OptOut(frozenset({"subagent/progress", "subagent/started"}))
    service._subagent_progress("sess_1", "deleg_1", progress("subagent.text", "hidden"))
    service._subagent_progress("sess_1", "deleg_1", progress("subagent.tool", "hidden"))
    info = pr.SubagentInfo("deleg_1", "goal", "running", None, 0, None)
    service._subagent_changed("started", "sess_1", info)
    service._subagent_changed("ended", "sess_1", info)
    service.peer.writer.wait_idle(WAIT)  # type: ignore[union-attr]
    assert [list(p) for p in frames(read_fd, write_fd)] == [["sessionId", "subagent"]]
