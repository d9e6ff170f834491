"""FrameWriter over a real os.pipe: whole frames, backpressure, write errors."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from hermes_stdio.transport import FrameWriter, TimerHandle
from hermes_stdio.transport.timers import Timers
from hermes_stdio.wire import Frame, FrameDecoder

WAIT = 10.0


class PipeReader:
    """Reads one pipe on a thread into a FrameDecoder until EOF."""

    def __init__(self, fd: int, *, start: bool = True) -> None:
        self.fd = fd
        self.decoder = FrameDecoder()
        self.events: list[object] = []
        self.raw = bytearray()
        self.eof = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        if start:
            self.thread.start()

    def _run(self) -> None:
        while data := os.read(self.fd, 1 << 16):
            self.raw += data
            self.events += self.decoder.feed(data)
        self.eof.set()

    def bodies(self) -> list[bytes]:
        assert all(isinstance(e, Frame) for e in self.events), self.events
        return [e.body for e in self.events]  # type: ignore[attr-defined]


class Pipe:
    def __init__(self) -> None:
        self.r, self.w = os.pipe()
        self._open = {self.r, self.w}

    def close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self._open):
            self.close(fd)


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    p = Pipe()
    yield p
    p.close_all()


def until(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    """Bounded wait for a state change that has no event to wait on."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.001)
    return True


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


class Stream:
    """A run's stand-in: when one of its items was last rendered."""

    last_written = 0.0


class TextBody:
    """A lazy delta: absorbs later text of its stream until it is written."""

    def __init__(self, owner: Stream, text: str) -> None:
        self.owner, self.parts, self.size = owner, [text], len(text)

    @property
    def last_written(self) -> float:
        return self.owner.last_written

    def render(self) -> bytes:
        self.owner.last_written = time.monotonic()
        return ('{"text":"' + "".join(self.parts) + '"}').encode()

    def merge(self, owner: object, text: str) -> bool:
        if owner is not self.owner:
            return False
        self.parts.append(text)
        return True


class ManualTimers(Timers):
    """call_later records; the test fires."""

    def __init__(self) -> None:
        super().__init__()
        self.set: list[tuple[float, Callable[[], None]]] = []

    def call_later(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        self.set.append((delay, fn))
        return TimerHandle(time.monotonic() + delay, fn)


def lazy_delta(writer: FrameWriter, owner: Stream, text: str) -> None:
    if not writer.merge_tail(owner, text):
        assert writer.send_lazy(TextBody(owner, text))


def test_with_a_linger_deltas_right_after_a_write_wait_merged_and_leave_in_one_frame(pipe: Pipe):
    reader = PipeReader(pipe.r)
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=60.0, timers=timers, handoff=True)
    run = Stream()
    lazy_delta(writer, run, "a")  # nothing written for a while: at once
    assert until(lambda: len(reader.events) == 1)
    for text in "bcd":  # within the linger: they wait, merged into one item
        lazy_delta(writer, run, text)
    assert writer.frames_written == 1 and len(timers.set) == 1
    delay, flush = timers.set[0]
    assert 0 < delay <= 60.0
    run.last_written -= 60.0
    flush()  # the linger passed with nothing else sent
    assert writer.wait_idle(WAIT)
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"bcd"}']
    assert writer.writes == 2


def test_a_plain_send_takes_what_waits_for_the_linger_with_it_in_order(pipe: Pipe):
    reader = PipeReader(pipe.r)
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=60.0, timers=timers, handoff=True)
    run = Stream()
    lazy_delta(writer, run, "a")
    lazy_delta(writer, run, "b")
    assert writer.send(b'{"id":1,"result":true}')  # a response never waits
    assert writer.wait_idle(WAIT)
    (_, flush) = timers.set[0]
    flush()  # the timer finds nothing left to write
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"b"}', b'{"id":1,"result":true}']
    assert writer.writes == 2


def test_wait_idle_covers_items_waiting_for_the_linger(pipe: Pipe):
    reader = PipeReader(pipe.r)
    writer = FrameWriter(pipe.w, linger_s=0.05, handoff=True)  # the process-wide timers
    run = Stream()
    lazy_delta(writer, run, "a")
    lazy_delta(writer, run, "b")
    assert writer.wait_idle(WAIT)
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"b"}']


def test_without_a_linger_every_lazy_item_is_written_at_once(pipe: Pipe):
    reader = PipeReader(pipe.r)
    writer = FrameWriter(pipe.w)
    run = Stream()
    for n, text in enumerate("abc", 1):
        lazy_delta(writer, run, text)
        assert writer.frames_written == n  # written by the sending thread, before it returns
    assert writer.merged == 0
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"b"}', b'{"text":"c"}']


def test_a_linger_without_handoff_is_refused(pipe: Pipe):
    with pytest.raises(ValueError, match="handoff"):
        FrameWriter(pipe.w, linger_s=0.001)


def test_a_slow_stream_is_written_at_once_while_a_fast_one_beside_it_waits(pipe: Pipe):
    reader = PipeReader(pipe.r)
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=60.0, timers=timers, handoff=True)
    fast, slow = Stream(), Stream()
    lazy_delta(writer, fast, "a")
    lazy_delta(writer, fast, "b")  # its stream just wrote: waits
    assert writer.frames_written == 1
    lazy_delta(writer, slow, "x")  # its stream never wrote: goes now, and takes "b" along
    assert writer.frames_written == 3
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"b"}', b'{"text":"x"}']


def test_a_stream_that_waits_for_less_than_the_armed_flush_gets_its_own_earlier_one(pipe: Pipe):
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=60.0, timers=timers, handoff=True)
    late, early = Stream(), Stream()
    early.last_written = time.monotonic() - 30  # wrote half a linger ago
    late.last_written = time.monotonic()
    lazy_delta(writer, late, "a")  # waits up to 60 s: a flush is armed
    lazy_delta(writer, early, "b")  # must not wait past its own 30 s
    (first, _), (second, _) = timers.set
    assert first > 59 and second <= 30


def test_a_timer_that_fires_for_a_batch_a_producer_wrote_waits_out_the_next_ones_linger(
    pipe: Pipe,
):
    reader = PipeReader(pipe.r)
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=60.0, timers=timers, handoff=True)
    run = Stream()
    lazy_delta(writer, run, "a")  # written at once
    lazy_delta(writer, run, "b")  # waits: its stream just wrote
    (_, flush) = timers.set[0]
    flush()  # early (say, a producer wrote what it was set for): sets itself again
    assert writer.frames_written == 1 and len(timers.set) == 2
    assert timers.set[1][0] > 59
    run.last_written -= 60.0
    timers.set[1][1]()
    assert writer.wait_idle(WAIT)
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    assert reader.bodies() == [b'{"text":"a"}', b'{"text":"b"}']


@pytest.mark.parametrize("how", ["merged", "queued"])
def test_a_producer_writes_a_batch_itself_once_it_is_overdue(pipe: Pipe, how: str):
    """The timer's thread may wait for the interpreter lock the producer holds (up to the
    switch interval): past that, the producer's own delta writes what waits, merged or
    behind it."""
    reader = PipeReader(pipe.r)
    timers = ManualTimers()  # never fires: a timer thread kept from running
    writer = FrameWriter(pipe.w, linger_s=0.5, timers=timers, handoff=True)
    assert writer.overdue_s == 0.5 + sys.getswitchinterval()
    run, other = Stream(), Stream()
    lazy_delta(writer, run, "a")  # written at once
    lazy_delta(writer, run, "b")  # waits
    other.last_written = time.monotonic()  # another stream that just wrote: it would wait
    run.last_written -= 0.5  # its linger is over, but the timer may still be on its way
    lazy_delta(writer, run, "c")
    assert writer.frames_written == 1
    run.last_written -= sys.getswitchinterval()  # overdue: the timer never ran
    lazy_delta(writer, run if how == "merged" else other, "d")
    assert writer.frames_written == (2 if how == "merged" else 3)  # written before it returned
    assert writer.wait_idle(WAIT)
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    expected = [b'{"text":"a"}', b'{"text":"bcd"}']
    if how == "queued":
        expected = [b'{"text":"a"}', b'{"text":"bc"}', b'{"text":"d"}']
    assert reader.bodies() == expected


def test_overdue_deltas_while_a_flusher_waits_on_a_full_pipe_stay_queued_behind_it(pipe: Pipe):
    """A stalled reader: the flusher owns the stream; an overdue batch must wait its turn,
    never start a second writer (that interleaved frames and lost deltas)."""
    timers = ManualTimers()
    writer = FrameWriter(pipe.w, linger_s=0.001, timers=timers, handoff=True)
    run = Stream()
    big = "x" * (1 << 20)  # far more than the pipe holds: a flusher takes over
    lazy_delta(writer, run, big)
    assert until(lambda: writer._writing)
    texts = [f"[{i}]" for i in range(200)]
    for text in texts:
        run.last_written = time.monotonic() - 1.0  # every batch long overdue
        lazy_delta(writer, run, text)
    reader = PipeReader(pipe.r)  # the reader comes back
    assert writer.wait_idle(WAIT)
    pipe.close(pipe.w)
    assert reader.eof.wait(WAIT)
    joined = b"".join(b[len(b'{"text":"') : -len(b'"}')] for b in reader.bodies())
    assert joined == (big + "".join(texts)).encode()


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
