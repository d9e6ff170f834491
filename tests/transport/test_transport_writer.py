"""FrameWriter over a real os.pipe: whole frames, backpressure, write errors, a stalled reader."""

from __future__ import annotations

import os
import threading

import pytest
from transport_writer_helpers import WAIT, Pipe, PipeReader, until

from hermes_stdio.transport import FrameWriter


class SpyCondition(threading.Condition):
    """A Condition that tells the test when some thread starts waiting on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_sent_body_arrives_as_one_exact_frame(pipe: Pipe):
    r, w = pipe.r, pipe.w
    writer = FrameWriter(w)
    assert writer.send(b'{"a":1}')
    assert writer.wait_idle(WAIT)
    pipe.close(w)
    assert os.read(r, 100) == b'Content-Length: 7\r\n\r\n{"a":1}'
    assert writer.frames_written == 1


def test_frames_from_many_concurrent_producers_never_interleave(pipe: Pipe):
    r, w = pipe.r, pipe.w
    reader = PipeReader(r)
    writer = FrameWriter(w, max_pending_bytes=64 * 1024)
    producers, per_producer = 16, 200
    barrier = threading.Barrier(producers)
    results: list[bool] = []

    def produce(p: int) -> None:
        barrier.wait(WAIT)
        for i in range(per_producer):
            body = (f"p{p}:i{i}:" + "x" * ((p * 131 + i * 17) % 3000)).encode()
            results.append(writer.send(body))

    threads = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(WAIT)
        assert not th.is_alive()
    assert writer.wait_idle(WAIT)
    pipe.close(w)
    assert reader.eof.wait(WAIT)
    assert all(results) and len(results) == producers * per_producer
    bodies = reader.bodies()
    assert len(bodies) == producers * per_producer
    assert writer.frames_written == len(bodies)
    # Each producer's frames arrive intact and in the order it sent them.
    for p in range(producers):
        mine = [b.split(b":")[1] for b in bodies if b.startswith(f"p{p}:".encode())]
        assert mine == [f"i{i}".encode() for i in range(per_producer)]
    assert writer.writes <= len(bodies) * 2  # bursts are batched, not one syscall per byte


def test_a_producer_blocks_past_max_pending_bytes_and_resumes_when_the_reader_drains(
    pipe: Pipe,
):
    r, w = pipe.r, pipe.w
    writer = FrameWriter(w, max_pending_bytes=1024, poll_s=0.05)
    spy = SpyCondition()
    writer._cond = spy  # observe the backpressure wait
    big = b"B" * (1 << 20)  # far more than a pipe holds: the first writer blocks in os.write
    first_done, second_done = threading.Event(), threading.Event()
    results: dict[str, bool] = {}

    def first() -> None:
        results["first"] = writer.send(big)
        first_done.set()

    def second() -> None:
        results["second"] = writer.send(b"small")
        second_done.set()

    t1 = threading.Thread(target=first, daemon=True)
    t1.start()
    # The writer is busy once the pipe is full; wait until its frame is pending.
    assert until(lambda: writer._writing)
    t2 = threading.Thread(target=second, daemon=True)
    t2.start()
    assert spy.waiting.wait(WAIT), "the second producer never waited for the reader"
    assert not second_done.is_set()
    reader = PipeReader(r)  # now drain
    assert first_done.wait(WAIT) and second_done.wait(WAIT)
    assert results == {"first": True, "second": True}
    assert writer.wait_idle(WAIT)
    pipe.close(w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [big, b"small"]


def test_a_write_error_makes_send_return_false_and_calls_on_error_once(pipe: Pipe):
    r, w = pipe.r, pipe.w
    errors: list[OSError] = []
    writer = FrameWriter(w, on_error=errors.append)
    pipe.close(r)  # EPIPE on the next write
    assert writer.send(b"x") is False
    assert writer.closed
    assert writer.send(b"y") is False
    assert writer.send(b"z") is False
    assert len(errors) == 1
    assert isinstance(errors[0], BrokenPipeError)
    assert writer.wait_idle(WAIT)


def test_a_write_error_unblocks_producers_waiting_on_backpressure(pipe: Pipe):
    r, w = pipe.r, pipe.w
    errors: list[OSError] = []
    writer = FrameWriter(w, max_pending_bytes=10, on_error=errors.append, poll_s=0.05)
    spy = SpyCondition()
    writer._cond = spy
    done = threading.Event()
    results: list[bool] = []

    def produce(body: bytes) -> None:
        results.append(writer.send(body))
        if len(results) == 2:
            done.set()

    threading.Thread(target=produce, args=(b"B" * (1 << 20),), daemon=True).start()
    assert until(lambda: writer._writing)
    threading.Thread(target=produce, args=(b"late",), daemon=True).start()
    assert spy.waiting.wait(WAIT)
    pipe.close(r)  # the blocked os.write fails with EPIPE
    assert done.wait(WAIT)
    assert results == [False, False]
    assert len(errors) == 1


def test_after_close_send_returns_false_and_writes_nothing(pipe: Pipe):
    r, w = pipe.r, pipe.w
    writer = FrameWriter(w)
    writer.close()
    assert writer.send(b"x") is False
    pipe.close(w)
    assert os.read(r, 100) == b""
    assert writer.wait_idle(WAIT)


class FailingBody:
    size = 10
    last_written = 0.0

    def render(self) -> bytes:
        raise ValueError("Out of range float values are not JSON compliant")

    def merge(self, owner: object, text: str) -> bool:
        return False


def test_a_lazy_item_that_fails_to_render_is_dropped_and_later_frames_still_flow(
    pipe: Pipe, capfd: pytest.CaptureFixture[str]
):
    r, w = pipe.r, pipe.w
    writer = FrameWriter(w)
    assert writer.send(b'{"n":1}')
    writer.send_lazy(FailingBody())
    assert writer.send(b'{"n":2}')
    assert writer.wait_idle(WAIT)
    pipe.close(w)
    assert os.read(r, 200) == b'Content-Length: 7\r\n\r\n{"n":1}Content-Length: 7\r\n\r\n{"n":2}'
    assert "not JSON compliant" in capfd.readouterr().err


# --- a reader that stops reading ----------------------------------------------


def flushers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "flush"}


def test_backlog_counts_what_a_stalled_reader_has_not_taken_and_empties_once_it_reads(
    pipe: Pipe,
):
    writer = FrameWriter(pipe.w, handoff=True)
    body = b"x" * (1 << 20)  # far more than the pipe holds
    assert writer.send(body)  # returns at once: a flusher waits on the full pipe
    assert 0 < writer.backlog <= len(body)
    reader = PipeReader(pipe.r)
    assert writer.wait_idle(WAIT)
    assert writer.backlog == 0
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [body]


def test_an_owning_writer_closed_while_its_flusher_waits_never_writes_to_the_fd_number_again(
    pipe: Pipe,
):
    """Closing frees the fd's number; a flusher that then wrote through it would put
    the rest of a frame into whatever file reuses the number (another worker's pipe)."""
    before = flushers()
    writer = FrameWriter(pipe.w, handoff=True, owns_fd=True, poll_s=0.01)
    pipe._open.discard(pipe.w)  # the writer owns it now
    assert writer.send(b"x" * (1 << 20))
    assert until(lambda: bool(flushers() - before))
    reuse_r, reuse_w = os.pipe()
    writer.close()
    os.dup2(reuse_w, pipe.w)  # the freed number now names another pipe's write end
    os.close(reuse_w)
    try:
        reader = PipeReader(pipe.r)  # the old pipe drains: a flusher would wake now
        assert until(lambda: not (flushers() - before))
        os.close(pipe.w)  # the new pipe's last write end: its reader sees EOF next
        assert reader.eof.wait(WAIT)  # nothing held the old pipe's write end open
        assert len(reader.raw) < 1 << 20  # the rest was discarded, not written
        assert os.read(reuse_r, 1 << 16) == b""  # the new pipe got nothing
    finally:
        os.close(reuse_r)
    assert writer.send(b"late") is False


def test_owning_the_fd_without_handoff_is_refused(pipe: Pipe):
    with pytest.raises(ValueError):
        FrameWriter(pipe.w, owns_fd=True)
