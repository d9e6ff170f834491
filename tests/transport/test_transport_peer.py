"""Peer over two os.pipe pairs: correlation, timeouts, close, invalid input."""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from hermes_stdio.transport import TIMERS, Peer
from hermes_stdio.wire import (
    ErrorType,
    Frame,
    FrameDecoder,
    Notification,
    Request,
    Response,
    encode_frame,
    encode_request,
)

WAIT = 10.0
MAX_BODY = 4096


class Handler:
    """A tiny handler: echoes ``echo``, holds ``hold`` requests, raises on ``boom``."""

    def __init__(self) -> None:
        self.requests: queue.Queue[Request] = queue.Queue()
        self.notes: queue.Queue[Notification] = queue.Queue()
        self.held: queue.Queue[Request] = queue.Queue()
        self.closed: list[str] = []
        self.closed_event = threading.Event()

    def on_request(self, peer: Peer, request: Request) -> None:
        self.requests.put(request)
        if request.method == "echo":
            peer.respond(request.id, request.params)
        elif request.method == "hold":
            self.held.put(request)
        elif request.method == "boom":
            raise RuntimeError("handler bug with secret text")

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None:
        self.notes.put(note)

    def on_closed(self, peer: Peer, reason: str) -> None:
        self.closed.append(reason)
        self.closed_event.set()


class Link:
    """A Peer under test whose other end is raw pipes driven by the test."""

    def __init__(self, *, reading: bool = True, **peer_kwargs: Any) -> None:
        self.to_peer_r, self.to_peer_w = os.pipe()
        self.from_peer_r, self.from_peer_w = os.pipe()
        self.handler = Handler()
        self.peer = Peer(
            "remote",
            self.to_peer_r,
            self.from_peer_w,
            self.handler,
            max_body_bytes=MAX_BODY,
            **peer_kwargs,
        )
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        if reading:
            self._reader.start()
        self.peer.start()
        self._open = {self.to_peer_r, self.to_peer_w, self.from_peer_r, self.from_peer_w}
        if peer_kwargs.get("owns_write_fd"):
            self._open.discard(self.from_peer_w)

    def start_reading(self) -> None:
        """The other side reads what the peer wrote (once, for a Link made not reading)."""
        self._reader.start()

    def _read(self) -> None:
        decoder = FrameDecoder()
        while data := os.read(self.from_peer_r, 1 << 16):
            for event in decoder.feed(data):
                assert isinstance(event, Frame)
                self.received.put(json.loads(event.body))

    def write(self, data: bytes) -> None:
        os.write(self.to_peer_w, data)

    def send(self, obj: Any) -> None:
        self.write(encode_frame(json.dumps(obj).encode()))

    def next(self) -> dict[str, Any]:
        return self.received.get(timeout=WAIT)

    def close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)

    def close_input(self) -> None:
        self.close(self.to_peer_w)
        assert self.handler.closed_event.wait(WAIT)
        self.peer.join(WAIT)

    def shutdown(self) -> None:
        self.close_input()
        self.peer.close_write()
        self.close(self.from_peer_w)
        if self._reader.is_alive():
            self._reader.join(WAIT)
        for fd in list(self._open):
            self.close(fd)


@pytest.fixture
def link() -> Iterator[Link]:
    lk = Link()
    yield lk
    lk.shutdown()


def responses() -> tuple[queue.Queue[Response], Any]:
    q: queue.Queue[Response] = queue.Queue()
    return q, q.put


def error_type(msg: dict[str, Any]) -> ErrorType:
    kind = next(e for e in ErrorType if e.code == msg["error"]["code"])
    assert msg["error"]["data"]["type"] == kind.type
    return kind


# --- requests and responses --------------------------------------------------


def test_a_request_is_handled_and_answered_with_its_id(link: Link):
    link.send({"jsonrpc": "2.0", "id": 11, "method": "echo", "params": {"x": 1}})
    assert link.next() == {"jsonrpc": "2.0", "id": 11, "result": {"x": 1}}


def test_a_notification_goes_to_the_handler_and_is_not_answered(link: Link):
    link.send({"jsonrpc": "2.0", "method": "note", "params": {"n": 1}})
    assert link.handler.notes.get(timeout=WAIT) == Notification("note", {"n": 1})
    link.send({"jsonrpc": "2.0", "id": 1, "method": "echo"})
    assert link.next()["id"] == 1


def test_responses_resolve_their_own_requests_in_any_order(link: Link):
    q, cb = responses()
    ids = [link.peer.request("work", {"n": n}, cb) for n in range(5)]
    sent = [link.next() for _ in ids]
    assert [m["params"]["n"] for m in sent] == list(range(5))
    assert [m["id"] for m in sent] == ids
    assert len(set(ids)) == 5
    for msg in reversed(sent):
        link.send({"jsonrpc": "2.0", "id": msg["id"], "result": msg["params"]["n"] * 10})
    got = {}
    for _ in ids:
        r = q.get(timeout=WAIT)
        got[r.id] = r.result
    assert got == {i: n * 10 for n, i in enumerate(ids)}
    assert link.peer.pending_count == 0


def test_an_unanswered_request_times_out_with_worker_timeout_and_is_cancelled_remotely(
    link: Link, capfd: pytest.CaptureFixture[str]
):
    q, cb = responses()
    msg_id = link.peer.request("slow", {}, cb, timeout=0.05)
    assert link.next()["method"] == "slow"
    r = q.get(timeout=WAIT)
    assert r.id == msg_id
    assert r.error is not None
    assert r.error["code"] == ErrorType.WORKER_TIMEOUT.code
    assert r.error["data"]["type"] == ErrorType.WORKER_TIMEOUT.type
    assert link.peer.pending_count == 0
    # The other side may skip the work: nobody waits for it now.
    assert link.next() == {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": msg_id}}
    # A late answer is ignored, quietly (it was expected): the callback ran once.
    link.send({"jsonrpc": "2.0", "id": msg_id, "result": "late"})
    link.send({"jsonrpc": "2.0", "id": 99, "method": "echo"})
    assert link.next()["id"] == 99
    assert q.empty()
    # An answer nobody asked for is still worth a line on stderr.
    link.send({"jsonrpc": "2.0", "id": 12345, "result": "stray"})
    link.send({"jsonrpc": "2.0", "id": 100, "method": "echo"})
    assert link.next()["id"] == 100
    err = capfd.readouterr().err
    assert "unknown id 12345\n" in err
    assert f"unknown id {msg_id}\n" not in err


def test_cancel_remote_notifies_the_other_side_only_for_a_pending_request(link: Link):
    q, cb = responses()
    msg_id = link.peer.request("hold", {}, cb)
    assert link.next()["method"] == "hold"
    assert link.peer.cancel_remote(msg_id) is True
    assert link.next() == {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": msg_id}}
    # Still pending: its answer is still handled.
    link.send({"jsonrpc": "2.0", "id": msg_id, "result": "done anyway"})
    assert q.get(timeout=WAIT).result == "done anyway"
    assert link.peer.cancel_remote(msg_id) is False
    link.send({"jsonrpc": "2.0", "id": 99, "method": "echo"})
    assert link.next()["id"] == 99  # nothing else was sent before the echo's answer


def test_an_answer_before_the_timeout_cancels_it(link: Link):
    q, cb = responses()
    msg_id = link.peer.request("fast", {}, cb, timeout=0.5)
    # The timer thread runs deadlines in order: once this later one fired, so would have the
    # request's timeout, had it not been cancelled.
    after_deadline = threading.Event()
    TIMERS.call_later(0.6, after_deadline.set)
    link.send({"jsonrpc": "2.0", "id": link.next()["id"], "result": "ok"})
    assert q.get(timeout=WAIT) == Response(msg_id, "ok")
    assert after_deadline.wait(WAIT)
    assert q.empty()


def test_closing_the_remote_end_fails_pending_requests_and_calls_on_closed_once(link: Link):
    q, cb = responses()
    ids = {link.peer.request("hold", {}, cb), link.peer.request("hold", {}, cb, timeout=60)}
    link.close_input()
    failed = [q.get(timeout=WAIT) for _ in ids]
    assert {r.id for r in failed} == ids
    for r in failed:
        assert r.error == link.peer.close_error.to_wire()
        assert r.error["data"]["type"] == ErrorType.WORKER_CRASHED.type
    assert link.handler.closed == ["end of input"]
    assert link.peer.pending_count == 0


def test_a_request_after_close_fails_at_once_with_close_error(link: Link):
    link.close_input()
    q, cb = responses()
    link.peer.request("late", {}, cb)
    r = q.get(timeout=WAIT)
    assert r.error is not None and r.error["code"] == link.peer.close_error.kind.code
    assert link.handler.closed == ["end of input"]


def test_notify_and_respond_error_write_exact_messages(link: Link):
    assert link.peer.notify("run/delta", {"text": "hi"})
    assert link.next() == {"jsonrpc": "2.0", "method": "run/delta", "params": {"text": "hi"}}
    link.peer.respond_error(3, {"code": -32000, "message": "m"})
    assert link.next() == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "m"}}


# --- invalid input -----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "kind", "msg_id"),
    [
        (b"{not json", ErrorType.PARSE_ERROR, None),
        (b"\xff\xfe", ErrorType.PARSE_ERROR, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"echo"}]', ErrorType.INVALID_REQUEST, None),
        (b'{"id":5,"method":"echo"}', ErrorType.INVALID_REQUEST, 5),
        (b'{"jsonrpc":"2.0","id":true,"method":"echo"}', ErrorType.INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":6,"method":"echo","params":[1]}', ErrorType.INVALID_PARAMS, 6),
    ],
)
def test_an_invalid_message_is_answered_with_its_code_and_the_peer_keeps_serving(
    link: Link, body: bytes, kind: ErrorType, msg_id: Any
):
    link.write(encode_frame(body))
    answer = link.next()
    assert error_type(answer) is kind
    assert answer["id"] == msg_id
    link.send({"jsonrpc": "2.0", "id": 7, "method": "echo", "params": {"ok": True}})
    assert link.next() == {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}
    assert link.handler.requests.get(timeout=WAIT).id == 7


def test_an_invalid_notification_is_not_answered(link: Link):
    link.send({"jsonrpc": "2.0", "method": "note", "params": [1]})
    link.send({"jsonrpc": "2.0", "id": 8, "method": "echo"})
    assert link.next()["id"] == 8


def test_an_oversized_frame_is_answered_message_too_large_and_skipped(link: Link):
    big = encode_request(1, "echo", {"pad": "x" * (MAX_BODY * 2)})
    link.write(encode_frame(big) + encode_frame(encode_request(2, "echo", {})))
    answer = link.next()
    assert error_type(answer) is ErrorType.MESSAGE_TOO_LARGE
    assert answer["id"] is None
    assert link.next() == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_result_over_the_answer_limit_is_answered_message_too_large_with_its_id() -> None:
    link = Link(answer_limit=MAX_BODY)
    try:
        for msg_id, size in ((3, MAX_BODY - 100), (4, MAX_BODY)):
            link.send({"jsonrpc": "2.0", "id": msg_id, "method": "hold", "params": {}})
            held = link.handler.held.get(timeout=WAIT)
            link.peer.respond(held.id, {"pad": "x" * size})
        fits = link.next()
        assert fits["id"] == 3 and len(fits["result"]["pad"]) == MAX_BODY - 100
        answer = link.next()  # its frame would be over the limit: the other side would skip it
        assert error_type(answer) is ErrorType.MESSAGE_TOO_LARGE
        assert answer["id"] == 4
    finally:
        link.shutdown()


def test_without_an_answer_limit_a_result_is_sent_whatever_our_own_limit(link: Link) -> None:
    link.send({"jsonrpc": "2.0", "id": 5, "method": "hold", "params": {}})
    link.peer.respond(link.handler.held.get(timeout=WAIT).id, {"pad": "x" * (MAX_BODY * 2)})
    assert len(link.next()["result"]["pad"]) == MAX_BODY * 2


def test_junk_between_frames_is_skipped_without_an_answer(link: Link):
    link.write(b"garbage!!" + encode_frame(encode_request(3, "echo", {"a": 1})))
    assert link.next() == {"jsonrpc": "2.0", "id": 3, "result": {"a": 1}}


def test_a_handler_exception_is_answered_internal_error_without_detail(link: Link):
    link.send({"jsonrpc": "2.0", "id": 4, "method": "boom"})
    answer = link.next()
    assert error_type(answer) is ErrorType.INTERNAL_ERROR
    assert "secret text" not in json.dumps(answer)
    link.send({"jsonrpc": "2.0", "id": 5, "method": "echo"})
    assert link.next()["id"] == 5


def test_with_answer_invalid_off_bad_input_gets_no_answer():
    lk = Link(answer_invalid=False)
    try:
        lk.write(encode_frame(b"{bad") + encode_frame(b"x" * (MAX_BODY + 1)))
        lk.send({"jsonrpc": "2.0", "id": 1, "method": "echo"})
        assert lk.next()["id"] == 1
    finally:
        lk.shutdown()


def test_a_fatal_framing_error_closes_the_peer(link: Link):
    q, cb = responses()
    link.peer.request("hold", {}, cb)
    link.write(b"Content-Length: nope\r\n\r\n" * 20)
    assert link.handler.closed_event.wait(WAIT)
    assert link.handler.closed == ["too much invalid input"]
    assert q.get(timeout=WAIT).error == link.peer.close_error.to_wire()


def test_a_request_is_in_flight_until_its_answers_callback_has_returned(link: Link):
    seen: queue.Queue[tuple[int, int]] = queue.Queue()

    def callback(_response: Response) -> None:
        # What the answer created (a run's route, say) is recorded here: until this
        # returns, nothing may take the peer for idle.
        seen.put((link.peer.pending_count, link.peer.in_flight))

    msg_id = link.peer.request("work", {}, callback)
    assert link.peer.in_flight == 1
    link.next()
    link.send({"jsonrpc": "2.0", "id": msg_id, "result": None})
    assert seen.get(timeout=WAIT) == (0, 1)


def test_a_request_whose_callback_records_nothing_stops_being_in_flight_once_answered(
    link: Link,
):
    seen: queue.Queue[int] = queue.Queue()
    msg_id = link.peer.request("ask", {}, lambda _r: seen.put(link.peer.in_flight), records=False)
    assert link.peer.in_flight == 1  # unanswered, it counts as any request does
    link.next()
    link.send({"jsonrpc": "2.0", "id": msg_id, "result": None})
    assert seen.get(timeout=WAIT) == 0


# --- a side that stops reading -----------------------------------------------


def test_while_more_than_refuse_over_bytes_wait_unread_a_request_fails_at_once_unsent():
    lk = Link(reading=False, handoff=True, refuse_over=100_000)
    try:
        q, cb = responses()
        big_id = lk.peer.request("big", {"blob": "x" * 200_000}, cb)  # taken: nothing waited
        assert lk.peer.backlog > 100_000  # the other side reads nothing yet
        refused_id = lk.peer.request("next", {}, cb)  # answered before request() returns
        refused = q.get_nowait()
        assert refused.id == refused_id
        assert refused.error == lk.peer.overload_error.to_wire()
        assert refused.error["data"]["type"] == ErrorType.WORKER_OVERLOADED.type
        assert lk.peer.pending_count == 1  # only the big one waits for an answer
        lk.start_reading()
        assert lk.next()["id"] == big_id
        lk.send({"jsonrpc": "2.0", "id": big_id, "result": "ok"})
        assert q.get(timeout=WAIT).result == "ok"
        assert lk.peer.writer.wait_idle(WAIT) and lk.peer.backlog == 0
        after_id = lk.peer.request("after", {}, cb)
        assert lk.next()["id"] == after_id  # the refused one was never written
    finally:
        lk.shutdown()


def test_a_peer_owning_its_write_fd_closes_it_once_the_other_side_closed():
    lk = Link(handoff=True, owns_write_fd=True)
    try:
        lk.close_input()
        lk._reader.join(WAIT)  # EOF: our write end was closed with the peer
        assert not lk._reader.is_alive()
        q, cb = responses()
        lk.peer.request("late", {}, cb)
        assert q.get(timeout=WAIT).error == lk.peer.close_error.to_wire()
    finally:
        lk.shutdown()
