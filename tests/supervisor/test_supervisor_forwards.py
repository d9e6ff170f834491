"""Forwards: a host's cancel reaches the worker request that answers it, and only that."""

from __future__ import annotations

from typing import Any

from hermes_stdio.supervisor.forwards import Forward, Forwards
from hermes_stdio.wire import Request


class FakePeer:
    def __init__(self) -> None:
        self.cancelled: list[Any] = []

    def cancel_remote(self, msg_id: Any) -> bool:
        self.cancelled.append(msg_id)
        return True


def forwarded(forwards: Forwards, req: Request, peer: FakePeer, worker_id: int) -> Forward:
    forward = Forward(req)
    forwards.sent(forward, peer, worker_id)  # type: ignore[arg-type]
    return forward


def test_a_cancel_of_a_request_sent_on_cancels_its_worker_request_once() -> None:
    forwards, peer, req = Forwards(), FakePeer(), Request(7, "model/list", {})
    forwarded(forwards, req, peer, 41)
    assert forwards.cancel(req) is True
    assert forwards.cancel(req) is False
    assert peer.cancelled == [41]


def test_nothing_is_cancelled_once_the_worker_answered_even_before_it_was_recorded() -> None:
    forwards, peer = Forwards(), FakePeer()
    answered = Request(1, "model/list", {})
    forwards.done(forwarded(forwards, answered, peer, 10))
    early = Request(2, "model/list", {})
    forward = Forward(early)
    forwards.done(forward)  # the answer beat the record
    forwards.sent(forward, peer, 11)  # type: ignore[arg-type]
    assert forwards.cancel(answered) is False and forwards.cancel(early) is False
    assert peer.cancelled == []


def test_a_reused_host_id_cancels_only_the_request_that_holds_it_now() -> None:
    forwards, peer = Forwards(), FakePeer()
    old, new = Request(5, "model/list", {}), Request(5, "session/history", {})
    old_forward = forwarded(forwards, old, peer, 20)
    forwarded(forwards, new, peer, 21)  # old was answered meanwhile, id 5 reused
    forwards.done(old_forward)  # old's late bookkeeping leaves new's entry alone
    assert forwards.cancel(old) is False
    assert forwards.cancel(new) is True
    assert peer.cancelled == [21]
