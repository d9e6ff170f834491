"""``account_login.AccountLogins`` over a stand-in device flow: the code the host
shows, one end told for each login whose id the host got, tokens stored only by a
login still under way, cancel and replacement, the named errors; and the wraps of
hermes' device-code request and poll."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

import pytest

from hermes_stdio.protocol.accounts import AccountLoginResult
from hermes_stdio.wire import ErrorType, RpcError
from hermes_stdio.worker.account_login import (
    CANCELLED,
    REPLACED,
    AccountLogins,
    DeviceCode,
    HermesNous,
    Stopped,
    hooked,
    stoppable,
    telling,
)

WAIT_S = 10.0
CODE = DeviceCode("WXYZ-0001", "https://portal.example/device", None, 600)


class FakeFlow:
    """Shows ``CODE`` (unless ``fails_first``), then waits for the test's verdict on
    that run (``verdict``)."""

    def __init__(self, fails_first: str | None = None, heeds_stop: bool = True) -> None:
        self.fails_first, self.heeds_stop = fails_first, heeds_stop
        self.runs: list[queue.Queue[str]] = []
        self.saved: list[Any] = []
        self.finished = threading.Semaphore(0)

    def verdict(self, verdict: str, run: int = -1) -> None:
        self.runs[run].put(verdict)

    def run(self, shown: Callable[[DeviceCode], None], stop: threading.Event) -> Any:
        verdicts: queue.Queue[str] = queue.Queue()
        self.runs.append(verdicts)
        try:
            if self.fails_first:
                raise RuntimeError(self.fails_first)
            shown(CODE)
            while True:  # as hermes' poll: it looks at the stop between requests only
                try:
                    verdict = verdicts.get(timeout=0.05)
                    break
                except queue.Empty:
                    if stop.is_set() and self.heeds_stop:
                        raise Stopped() from None
            if verdict != "approved":
                raise RuntimeError(verdict)
            return {"token": len(self.runs)}
        finally:
            self.finished.release()

    def save(self, state: Any) -> None:
        self.saved.append(state)


class Told:
    def __init__(self) -> None:
        self.ends: queue.Queue[tuple[str, str, str | None]] = queue.Queue()

    def __call__(self, login_id: str, provider: str, error: str | None) -> None:
        self.ends.put((login_id, provider, error))

    def next(self) -> tuple[str, str, str | None]:
        return self.ends.get(timeout=WAIT_S)


def logins(flow: FakeFlow) -> tuple[AccountLogins, Told]:
    told = Told()
    return AccountLogins({"nous": flow}, told), told


def begin(accounts: AccountLogins) -> AccountLoginResult:
    answers: list[AccountLoginResult] = []
    accounts.start("nous", answers.append)
    [started] = answers
    return started


def test_an_approved_login_answers_the_code_stores_the_tokens_and_tells_its_end_once() -> None:
    flow = FakeFlow()
    accounts, told = logins(flow)
    started = begin(accounts)
    assert (started.provider, started.user_code, started.expires_in) == ("nous", "WXYZ-0001", 600)
    assert started.verification_uri == CODE.verification_uri
    flow.verdict("approved")
    assert told.next() == (started.login_id, "nous", None)
    assert flow.saved == [{"token": 1}]
    assert told.ends.empty()
    with pytest.raises(RpcError) as err:  # over: nothing to cancel
        accounts.cancel(started.login_id)
    assert err.value.kind is ErrorType.UNKNOWN_ACCOUNT_LOGIN


def test_a_flow_that_fails_before_a_code_is_account_login_failed_and_tells_no_end() -> None:
    accounts, told = logins(FakeFlow(fails_first="portal unreachable"))
    with pytest.raises(RpcError) as err:
        accounts.start("nous", lambda result: None)
    assert err.value.kind is ErrorType.ACCOUNT_LOGIN_FAILED
    assert err.value.data == {"provider": "nous"}
    assert "portal unreachable" in err.value.message
    assert told.ends.empty()


def test_a_login_that_ends_before_its_answer_went_out_is_told_after_it() -> None:
    flow = FakeFlow()
    accounts, told = logins(flow)
    order: list[str] = []

    def answer(result: AccountLoginResult) -> None:  # the provider answers meanwhile
        flow.verdict("approved")
        assert flow.finished.acquire(timeout=WAIT_S)
        assert told.ends.empty()  # its id is not the host's yet
        order.append(result.login_id)

    accounts.start("nous", answer)
    [login_id] = order
    assert told.next() == (login_id, "nous", None)
    assert flow.saved == [{"token": 1}]
    assert told.ends.empty()  # told once


def test_a_declined_login_ends_with_the_flows_reason_and_stores_nothing() -> None:
    flow = FakeFlow()
    accounts, told = logins(flow)
    started = begin(accounts)
    flow.verdict("access_denied: the user declined")
    assert told.next() == (started.login_id, "nous", "access_denied: the user declined")
    assert flow.saved == []


def test_a_cancel_ends_the_login_at_once_and_an_approval_after_it_stores_nothing() -> None:
    flow = FakeFlow(heeds_stop=False)  # as a poll already at the provider when the cancel came
    accounts, told = logins(flow)
    started = begin(accounts)
    accounts.cancel(started.login_id)
    assert told.next() == (started.login_id, "nous", CANCELLED)
    flow.verdict("approved")
    assert flow.finished.acquire(timeout=WAIT_S)
    assert flow.saved == []
    assert told.ends.empty()


def test_a_second_login_of_a_provider_replaces_the_first() -> None:
    flow = FakeFlow()
    accounts, told = logins(flow)
    first = begin(accounts)
    second = begin(accounts)
    assert told.next() == (first.login_id, "nous", REPLACED)
    flow.verdict("approved")
    assert told.next() == (second.login_id, "nous", None)
    assert flow.saved == [{"token": 2}]


def test_a_provider_without_a_flow_is_invalid_params_naming_the_provider() -> None:
    accounts, _ = logins(FakeFlow())
    assert accounts.providers == frozenset({"nous"})
    with pytest.raises(RpcError) as err:
        accounts.start("openai-codex", lambda result: None)
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data == {"field": "params.provider"}


class Client:
    def __init__(self) -> None:
        self.posts = 0

    def post(self, *args: Any, **kwargs: Any) -> str:
        self.posts += 1
        return "pending"


def test_hermes_poll_stops_at_its_next_request_once_its_login_ended() -> None:
    def poll(*, client: Any, device_code: str) -> list[str]:
        return [client.post("/token", data=device_code) for _ in range(2)]

    client, stop = Client(), threading.Event()
    wrapped = stoppable(poll)
    with hooked(lambda code: None, stop):
        assert wrapped(client=client, device_code="d") == ["pending", "pending"]
        stop.set()
        with pytest.raises(Stopped):
            wrapped(client=client, device_code="d")
    assert client.posts == 2
    assert wrapped(client=client, device_code="d") == ["pending", "pending"]  # no login: as is


def test_hermes_device_code_request_shows_the_code_it_got() -> None:
    answer = {"device_code": "d", "user_code": "U-1", "verification_uri": "https://p/device",
              "verification_uri_complete": "https://p/device?u=U-1", "expires_in": 900}  # fmt: skip
    shown: list[DeviceCode] = []
    wrapped = telling(lambda **kw: answer)
    with hooked(shown.append, threading.Event()):
        assert wrapped(client=None) == answer
    assert shown == [DeviceCode("U-1", "https://p/device", "https://p/device?u=U-1", 900)]


def test_logins_starting_together_wrap_hermes_steps_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_cli import auth

    together = threading.Barrier(2)

    class Step:
        """A hermes step whose check for a wrapper waits for the other login's check:
        two logins unguarded would both find it unwrapped."""

        def __call__(self, **kwargs: Any) -> None:
            pass

        def __getattr__(self, name: str) -> Any:
            with contextlib.suppress(threading.BrokenBarrierError):
                together.wait(0.5)
            raise AttributeError(name)

    request, poll = Step(), Step()
    monkeypatch.setattr(auth, "_request_device_code", request)
    monkeypatch.setattr(auth, "_poll_for_token", poll)
    monkeypatch.setattr(auth, "_nous_device_code_login", lambda open_browser: "signed in")
    logins = [
        threading.Thread(target=HermesNous().run, args=(lambda code: None, threading.Event()))
        for _ in range(2)
    ]
    for login in logins:
        login.start()
    for login in logins:
        login.join(WAIT_S)
    assert auth._request_device_code.__wrapped__ is request
    assert auth._poll_for_token.__wrapped__ is poll
