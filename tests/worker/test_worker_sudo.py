"""SudoBridge: hermes' sudo password callback waits until the host answers, declines, the
time runs out or the run is interrupted; each request is closed by one sudo/resolved, and
the password is never sent back."""

from __future__ import annotations

import json
import threading

from test_worker_clarify import Wire, session_with_run

from hermes_stdio.worker.state import Session
from hermes_stdio.worker.sudo import SudoBridge

WAIT = 10.0


def asked_in_thread(bridge: SudoBridge, session: Session) -> tuple[list[str], threading.Thread]:
    out: list[str] = []
    thread = threading.Thread(target=lambda: out.append(bridge.callback(session)()), daemon=True)
    thread.start()
    return out, thread


def test_the_hosts_password_reaches_hermes_and_is_never_sent_back() -> None:
    wire, bridge = Wire(), SudoBridge(60)
    out, thread = asked_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("sudo/requested")
    assert asked == {
        "runId": "run_1",
        "sessionId": "sess_1",
        "seq": 1,
        "sudoId": asked["sudoId"],
        "timeoutMs": 60_000,
    }
    assert bridge.answer("sess_other", asked["sudoId"], "pw-1") is None  # another session's
    assert bridge.answer("sess_1", "sudo_nope", "pw-1") is None
    assert bridge.answer("sess_1", asked["sudoId"], "pw-1") == "answered"
    thread.join(WAIT)
    assert out == ["pw-1"]
    resolved = wire.wait_method("sudo/resolved")
    assert resolved["outcome"] == "answered" and resolved["seq"] == 2
    assert "pw-1" not in json.dumps(wire.notes)
    assert bridge.answer("sess_1", asked["sudoId"], "pw-1") is None  # answered already


def test_declining_gives_hermes_no_password() -> None:
    wire, bridge = Wire(), SudoBridge(60)
    out, thread = asked_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("sudo/requested")
    assert bridge.answer("sess_1", asked["sudoId"], None) == "declined"
    thread.join(WAIT)
    assert out == [""]
    assert wire.wait_method("sudo/resolved")["outcome"] == "declined"


def test_an_unanswered_request_times_out_with_no_password() -> None:
    wire, bridge = Wire(), SudoBridge(0.3)
    out, thread = asked_in_thread(bridge, session_with_run(wire))
    thread.join(WAIT)
    assert out == [""]
    assert wire.wait_method("sudo/resolved")["outcome"] == "timed_out"


def test_interrupting_the_run_cancels_a_waiting_request() -> None:
    wire, bridge = Wire(), SudoBridge(60)
    session = session_with_run(wire)
    out, thread = asked_in_thread(bridge, session)
    wire.wait_method("sudo/requested")
    assert session.run is not None
    session.run.request_interrupt(None)
    thread.join(WAIT)
    assert out == [""]
    assert wire.wait_method("sudo/resolved")["outcome"] == "cancelled"


def test_a_request_outside_a_run_is_not_asked() -> None:
    wire, bridge = Wire(), SudoBridge(60)
    assert bridge.callback(Session("sess_1", "default"))() == ""
    assert wire.notes == []
