"""Run notifications through a real FrameWriter: numbered when written, deltas coalesce
while the stream is busy, and nothing is lost or reordered."""

from __future__ import annotations

import json
import os
import threading

from hermes_stdio.transport import FrameWriter
from hermes_stdio.wire import FrameDecoder
from hermes_stdio.worker.state import Run

WAIT = 10.0


class BlockingBody:
    """A queued item whose rendering waits, holding the writer busy like a full pipe."""

    size = 10
    last_written = 0.0

    def __init__(self) -> None:
        self.rendering = threading.Event()
        self.release = threading.Event()

    def render(self) -> bytes:
        self.rendering.set()
        assert self.release.wait(WAIT)
        return b'{"jsonrpc":"2.0","method":"blocker","params":{}}'

    def merge(self, owner: object, text: str) -> bool:
        return False


def read_all(fd: int) -> list[dict]:
    decoder = FrameDecoder()
    frames = []
    while chunk := os.read(fd, 1 << 16):
        frames += decoder.feed(chunk)
    return [json.loads(f.body) for f in frames]


def test_deltas_queued_while_the_writer_is_busy_coalesce_into_one_frame_with_one_seq() -> None:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd)
    run = Run("run_1", "sess_1", writer)
    run.delta("first ")  # written at once: the writer was idle
    blocker = BlockingBody()
    busy = threading.Thread(target=writer.send_lazy, args=(blocker,))
    busy.start()
    assert blocker.rendering.wait(WAIT)
    for piece in ("a", "b", "c"):
        assert run.delta(piece)
    run.emit("run/event", {"event": {"type": "thinking", "text": ""}})
    run.delta("d")
    assert writer.merged == 2  # "b" and "c" joined "a"; the event ended that delta
    blocker.release.set()
    busy.join(WAIT)
    run.complete("complete")
    os.close(write_fd)
    messages = read_all(read_fd)
    os.close(read_fd)
    runs = [m["params"] for m in messages if m["method"].startswith("run/")]
    assert [(m["seq"], m.get("text")) for m in runs] == [
        (1, "first "),
        (2, "abc"),
        (3, None),
        (4, "d"),
        (5, None),
    ]
    assert [m["method"] for m in messages] == [
        "run/delta",
        "blocker",
        "run/delta",
        "run/event",
        "run/delta",
        "run/completed",
    ]


def test_deltas_of_different_runs_never_merge() -> None:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd)
    one, two = Run("run_1", "s", writer), Run("run_2", "s", writer)
    blocker = BlockingBody()
    busy = threading.Thread(target=writer.send_lazy, args=(blocker,))
    busy.start()
    assert blocker.rendering.wait(WAIT)
    one.delta("x")
    two.delta("y")
    one.delta("z")
    assert writer.merged == 0
    blocker.release.set()
    busy.join(WAIT)
    os.close(write_fd)
    texts = [
        (m["params"]["runId"], m["params"]["text"])
        for m in read_all(read_fd)
        if "text" in m["params"]
    ]
    os.close(read_fd)
    assert texts == [("run_1", "x"), ("run_2", "y"), ("run_1", "z")]


def test_a_full_queue_refuses_to_merge_so_the_producer_pauses_instead() -> None:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd, max_pending_bytes=64)
    run = Run("run_1", "sess_1", writer)
    blocker = BlockingBody()
    busy = threading.Thread(target=writer.send_lazy, args=(blocker,))
    busy.start()
    assert blocker.rendering.wait(WAIT)
    run.delta("a")
    assert not writer.merge_tail(run, "x" * 100)  # fits nowhere: over the limit
    blocker.release.set()
    busy.join(WAIT)
    os.close(write_fd)
    read_all(read_fd)
    os.close(read_fd)


def test_with_handoff_a_stalled_reader_never_blocks_the_producer_and_its_deltas_coalesce() -> None:
    read_fd, write_fd = os.pipe()
    writer = FrameWriter(write_fd, handoff=True)
    run = Run("run_1", "sess_1", writer)
    big = "x" * (1 << 20)  # far more than the pipe holds: the flusher takes over
    assert run.emit("run/event", {"event": {"type": "status", "kind": "k", "message": big}})
    for piece in ("a", "b", "c", "d"):
        assert run.delta(piece)  # returns at once although nobody reads
    assert writer.merged == 3
    run.complete("complete")
    reader = threading.Thread(target=lambda: result.extend(read_all(read_fd)))
    result: list[dict] = []
    reader.start()
    assert writer.wait_idle(WAIT)
    os.close(write_fd)
    reader.join(WAIT)
    os.close(read_fd)
    assert [(m["method"], m["params"]["seq"]) for m in result] == [
        ("run/event", 1),
        ("run/delta", 2),
        ("run/completed", 3),
    ]
    assert result[1]["params"]["text"] == "abcd"


def test_an_event_json_cannot_carry_is_sent_with_strings_in_its_place_and_keeps_its_seq() -> None:
    r, w = os.pipe()
    writer = FrameWriter(w)
    run = Run("run_1", "sess_1", writer)
    run.emit("run/event", {"event": {"type": "tool.started", "args": {"t": float("nan")}}})
    run.delta("after")
    assert writer.wait_idle(WAIT)
    os.close(w)
    notes = read_all(r)
    os.close(r)
    assert [n["params"]["seq"] for n in notes] == [1, 2]
    assert notes[0]["params"]["event"]["args"] == {"t": "nan"}
    assert notes[1]["params"]["text"] == "after"


def test_a_lone_surrogate_in_delta_text_arrives_as_the_replacement_character() -> None:
    r, w = os.pipe()
    writer = FrameWriter(w)
    run = Run("run_1", "sess_1", writer)
    run.delta("half \ud83d of a pair, é")
    assert writer.wait_idle(WAIT)
    os.close(w)
    [note] = read_all(r)
    os.close(r)
    assert note["params"]["seq"] == 1
    assert note["params"]["text"] == "half \ufffd of a pair, é"
