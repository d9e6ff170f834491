"""FrameWriter over a real os.pipe: the linger that merges deltas, and when batches leave."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest
from transport_writer_helpers import WAIT, Pipe, PipeReader, until

from hermes_stdio.transport import FrameWriter, TimerHandle
from hermes_stdio.transport.timers import Timers


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
