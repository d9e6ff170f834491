"""SecretBridge: hermes' secret capture callback asks the host of the session it serves,
gives an answered value to hermes' save, and closes each request with one secret/resolved;
the value is never sent back."""

from __future__ import annotations

import contextvars
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from test_worker_clarify import Wire, session_with_run

from hermes_stdio.worker.secrets import SecretBridge
from hermes_stdio.worker.state import Session

WAIT = 10.0
VAR = "HERMES_STDIO_TEST_SECRET"
META = {"skill_name": "gh", "help": "https://example.test/tokens", "required_for": "API calls"}


class FakeSkills:
    def __init__(self) -> None:
        self.callbacks: list[Any] = []

    def set_secret_capture_callback(self, cb: Any) -> None:
        self.callbacks.append(cb)


class Saves:
    """hermes' save_env_value_secure, as far as the bridge can tell: the environment."""

    def __init__(self, fail: Exception | None = None, store: bool = True) -> None:
        self.calls: list[tuple[str, str]] = []
        self.fail, self.store = fail, store

    def __call__(self, name: str, value: str) -> dict[str, Any]:
        self.calls.append((name, value))
        if self.fail is not None:
            raise self.fail
        if self.store:
            os.environ[name] = value
        return {"success": True, "stored_as": name, "validated": False}


@pytest.fixture(autouse=True)
def no_secret() -> Iterator[None]:
    os.environ.pop(VAR, None)
    yield
    os.environ.pop(VAR, None)


def bridge_with(saves: Saves, timeout_s: float = 60) -> SecretBridge:
    bridge = SecretBridge(timeout_s)
    bridge.install(FakeSkills(), saves)
    return bridge


def captured_in_thread(
    bridge: SecretBridge, session: Session | None
) -> tuple[list[dict[str, Any]], threading.Thread]:
    out: list[dict[str, Any]] = []

    def capture() -> None:
        if session is None:
            out.append(bridge.capture(VAR, "Enter a token", META))
            return
        with bridge.serving(session):
            # hermes runs tools on threads it starts with the turn's context copied
            ctx = contextvars.copy_context()
            tool = threading.Thread(
                target=lambda: out.append(ctx.run(bridge.capture, VAR, "Enter a token", META))
            )
            tool.start()
            tool.join(WAIT)

    thread = threading.Thread(target=capture, daemon=True)
    thread.start()
    return out, thread


def test_the_hosts_value_is_saved_by_hermes_and_never_sent_back() -> None:
    wire, saves = Wire(), Saves()
    bridge = bridge_with(saves)
    out, thread = captured_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("secret/requested")
    assert asked == {
        "runId": "run_1",
        "sessionId": "sess_1",
        "seq": 1,
        "secretId": asked["secretId"],
        "envVar": VAR,
        "prompt": "Enter a token",
        "skillName": "gh",
        "help": "https://example.test/tokens",
        "requiredFor": "API calls",
        "timeoutMs": 60_000,
    }
    assert bridge.answer("sess_other", asked["secretId"], "tok-1") is None  # another session's
    assert bridge.answer("sess_1", "secret_nope", "tok-1") is None
    assert bridge.answer("sess_1", asked["secretId"], "tok-1") == "answered"
    thread.join(WAIT)
    assert saves.calls == [(VAR, "tok-1")]
    assert out == [{"success": True, "stored_as": VAR, "validated": False, "skipped": False}]
    resolved = wire.wait_method("secret/resolved")
    assert resolved["outcome"] == "stored" and resolved["seq"] == 2
    assert "tok-1" not in json.dumps(wire.notes)
    assert bridge.answer("sess_1", asked["secretId"], "tok-1") is None  # answered already


@pytest.mark.parametrize("value", [None, ""])
def test_skipping_saves_nothing_and_tells_hermes_it_was_skipped(value: str | None) -> None:
    wire, saves = Wire(), Saves()
    bridge = bridge_with(saves)
    out, thread = captured_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("secret/requested")
    assert bridge.answer("sess_1", asked["secretId"], value) == "skipped"
    thread.join(WAIT)
    assert saves.calls == []
    assert out[0]["success"] is False and out[0]["skipped"] is True
    assert wire.wait_method("secret/resolved")["outcome"] == "skipped"


@pytest.mark.parametrize(
    "saves", [Saves(fail=ValueError("Invalid environment variable name")), Saves(store=False)]
)
def test_a_value_hermes_does_not_store_is_failed(saves: Saves) -> None:
    wire = Wire()
    bridge = bridge_with(saves)
    out, thread = captured_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("secret/requested")
    assert bridge.answer("sess_1", asked["secretId"], "tok-1") == "answered"
    thread.join(WAIT)
    assert out[0]["success"] is False
    assert wire.wait_method("secret/resolved")["outcome"] == "failed"


def test_an_unanswered_request_times_out_and_saves_nothing() -> None:
    wire, saves = Wire(), Saves()
    out, thread = captured_in_thread(bridge_with(saves, 0.3), session_with_run(wire))
    thread.join(WAIT)
    assert out[0]["success"] is False and saves.calls == []
    assert wire.wait_method("secret/resolved")["outcome"] == "timed_out"


def test_interrupting_the_run_cancels_a_waiting_request() -> None:
    wire, saves = Wire(), Saves()
    session = session_with_run(wire)
    out, thread = captured_in_thread(bridge_with(saves), session)
    wire.wait_method("secret/requested")
    assert session.run is not None
    session.run.request_interrupt(None)
    thread.join(WAIT)
    assert out[0]["success"] is False and saves.calls == []
    assert wire.wait_method("secret/resolved")["outcome"] == "cancelled"


def test_a_request_outside_a_served_session_or_its_run_is_not_asked() -> None:
    wire, saves = Wire(), Saves()
    bridge = bridge_with(saves)
    for session in (None, Session("sess_1", "default")):
        out, thread = captured_in_thread(bridge, session)
        thread.join(WAIT)
        assert out[0]["skipped"] is True
    assert wire.notes == [] and saves.calls == []


def test_the_callback_is_installed_once() -> None:
    skills, bridge = FakeSkills(), SecretBridge()
    bridge.install(skills, Saves())
    bridge.install(skills, Saves())
    assert skills.callbacks == [bridge.capture]


@pytest.mark.parametrize("value", ["tok\x00en", "t\u043eken"], ids=["nul", "cyrillic-o"])
def test_a_value_hermes_would_mangle_or_print_is_failed_without_reaching_hermes(
    value: str, capfd: pytest.CaptureFixture[str]
) -> None:
    wire, saves = Wire(), Saves()
    bridge = bridge_with(saves)
    out, thread = captured_in_thread(bridge, session_with_run(wire))
    asked = wire.wait_method("secret/requested")
    assert bridge.answer("sess_1", asked["secretId"], value) == "answered"
    thread.join(WAIT)
    assert saves.calls == []
    assert out[0]["success"] is False
    assert wire.wait_method("secret/resolved")["outcome"] == "failed"
    assert value not in capfd.readouterr().err
