"""What a host may opt out of at initialize, and who drops what."""

from __future__ import annotations

import pytest

from hermes_stdio.protocol import decode, encode
from hermes_stdio.protocol.events import EVENT_TYPES
from hermes_stdio.protocol.notifications import (
    REQUIRED_NOTIFICATIONS,
    SERVER_NOTIFICATIONS,
)
from hermes_stdio.protocol.opt_out import NO_OPT_OUT, OptOut, opt_out
from hermes_stdio.protocol.types import ClientCapabilities, InitializeParams
from hermes_stdio.protocol.workers import WorkerSetOptOutParams
from hermes_stdio.wire import ErrorType, RpcError


def caps(**wire: object) -> ClientCapabilities:
    return decode(InitializeParams, {"protocolVersion": 1, "capabilities": wire}).capabilities


def test_no_capabilities_or_empty_ones_opt_out_of_nothing():
    assert opt_out(None) == NO_OPT_OUT
    assert opt_out(caps()) == NO_OPT_OUT
    assert not NO_OPT_OUT.mutes("run/delta")


def test_a_runs_bounds_and_every_request_it_waits_on_cannot_be_opted_out_of():
    assert {
        "run/started",
        "run/completed",
        *(
            f"{kind}/{end}"
            for kind in ("approval", "clarify", "compression", "sudo", "secret")
            for end in ("requested", "resolved")
        ),
    } == REQUIRED_NOTIFICATIONS
    for name in sorted(REQUIRED_NOTIFICATIONS):
        with pytest.raises(RpcError) as err:
            opt_out(caps(optOutNotificationMethods=["run/delta", name]))
        assert err.value.kind is ErrorType.INVALID_PARAMS
        assert err.value.data == {"field": "params.capabilities.optOutNotificationMethods[1]"}


@pytest.mark.parametrize(
    ("wire", "field"),
    [
        ({"optOutNotificationMethods": ["run/nope"]}, "optOutNotificationMethods[0]"),
        ({"optOutNotificationMethods": ["initialize"]}, "optOutNotificationMethods[0]"),
        ({"optOutRunEvents": ["status", "tool.nope"]}, "optOutRunEvents[1]"),
    ],
)
def test_a_name_the_server_never_sends_is_refused_naming_its_place(wire, field):
    with pytest.raises(RpcError) as err:
        opt_out(caps(**wire))
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == f"params.capabilities.{field}"


def test_an_unknown_capability_is_refused_like_any_unknown_field():
    with pytest.raises(RpcError) as err:
        caps(experimental=True)
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.capabilities.experimental"


def test_every_other_notification_and_every_event_type_may_be_opted_out_of():
    allowed = sorted(set(SERVER_NOTIFICATIONS) - REQUIRED_NOTIFICATIONS)
    chosen = opt_out(caps(optOutNotificationMethods=allowed, optOutRunEvents=list(EVENT_TYPES)))
    assert all(chosen.mutes(name) for name in allowed)
    assert not any(chosen.mutes(name) for name in REQUIRED_NOTIFICATIONS)


def test_a_worker_is_told_every_notification_and_event_type_opted_out_of():
    chosen = opt_out(
        caps(
            optOutNotificationMethods=["profile/listChanged", "run/delta", "shell/output"],
            optOutRunEvents=["tool.progress", "reasoning.delta"],
        )
    )
    told = chosen.for_worker()
    assert encode(told) == {
        "notifications": ["profile/listChanged", "run/delta", "shell/output"],
        "runEvents": ["reasoning.delta", "tool.progress"],
    }
    again = OptOut.from_worker(decode(WorkerSetOptOutParams, encode(told)))
    assert again == chosen and not again.mutes("run/event")


def test_a_run_note_is_muted_by_its_method_or_its_event_type():
    chosen = OptOut(frozenset({"run/delta"}), frozenset({"tool.progress"}))
    assert chosen.mutes_run_note("run/delta", {"text": "x"})
    assert chosen.mutes_run_note("run/event", {"event": {"type": "tool.progress"}})
    assert not chosen.mutes_run_note("run/event", {"event": {"type": "tool.started"}})
    assert not chosen.mutes_run_note("run/completed", {"status": "complete"})
    everything = OptOut(frozenset({"run/event"}))
    assert everything.mutes_run_note("run/event", {"event": {"type": "status"}})


def test_a_worker_told_to_drop_what_a_run_needs_keeps_it() -> None:
    told = WorkerSetOptOutParams(["approval/requested", "run/completed", "run/delta"], [])
    kept = OptOut.from_worker(told)
    assert kept.methods == {"run/delta"}
