"""sign_ins.SignIns: the sign-ins under way per worker, each ended once: by its
worker, or as orphaned when the worker exits; an end told before its start."""

from __future__ import annotations

from typing import Any

from hermes_stdio.supervisor.sign_ins import KEPT_EARLY, SignIns

WORK = ("work", None)
PLAY = ("play", None)


def end(login_id: str) -> Any:
    return lambda error: ("x/loginCompleted", {"loginId": login_id, "error": error})


def test_a_sign_in_its_worker_ended_is_not_orphaned_and_one_under_way_is_once() -> None:
    ins = SignIns()
    ins.started(WORK, "a", end("a"))
    ins.started(WORK, "b", end("b"))
    ins.started(PLAY, "c", end("c"))
    ins.ended(WORK, "a")
    assert ins.orphaned(WORK, "gone") == [("x/loginCompleted", {"loginId": "b", "error": "gone"})]
    assert ins.orphaned(WORK, "gone") == []
    assert ins.orphaned(PLAY, "gone") == [("x/loginCompleted", {"loginId": "c", "error": "gone"})]


def test_an_end_told_before_its_start_was_relayed_leaves_nothing_under_way() -> None:
    ins = SignIns()
    ins.ended(WORK, "a")
    ins.started(WORK, "a", end("a"))
    assert ins.orphaned(WORK, "gone") == []


def test_only_the_last_early_ends_are_kept() -> None:
    ins = SignIns()
    for n in range(KEPT_EARLY + 1):
        ins.ended(WORK, str(n))
    ins.started(WORK, "0", end("0"))  # its early end was let go: it stays under way
    assert [params["loginId"] for _, params in ins.orphaned(WORK, "gone")] == ["0"]
