"""``mcp_login.Logins`` over a stand-in for hermes' dashboard flow: the URL the host
sends the user to, the callback handed on, one end told for each login whose id
the host got, replacement, and the named errors."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_stdio.protocol.mcp_login import McpLoginResult
from hermes_stdio.wire import ErrorType, RpcError
from hermes_stdio.worker.mcp_login import REPLACED, SIGNED_OUT, Logins

WAIT_S = 10.0
URL = "https://auth.example/authorize?state=s1"


class FakeFlow:
    """hermes' flow: publishes ``URL`` (unless ``no_url``), then waits for its callback."""

    def __init__(self, redirect_uri: str, no_url: str | None = None) -> None:
        self.redirect_uri, self.no_url = redirect_uri, no_url
        self.published = threading.Event()
        self.called_back = threading.Event()
        self.callback: tuple[str | None, str | None] | None = None
        self.error: str | None = None

    def wait_url(self, timeout: float) -> str | None:
        self.published.wait(timeout)
        return None if self.error is not None else URL

    def deliver_callback(self, *, code: str | None, state: str | None, error: str | None) -> None:
        if state != "s1":
            raise ValueError("OAuth callback state mismatch")
        self.callback = (code, error)
        self.called_back.set()

    def mark_error(self, error: str) -> None:
        self.error = self.error or error
        self.published.set()
        self.called_back.set()


class FakeFlows:
    def __init__(self, no_url: str | None = None) -> None:
        self.flows: list[FakeFlow] = []
        self.connected: list[str] = []
        self.signed_out: list[str] = []
        self.no_url = no_url

    def new(self, login_id: str, name: str, redirect_uri: str) -> FakeFlow:
        flow = FakeFlow(redirect_uri)
        self.flows.append(flow)
        return flow

    def sign_in(self, flow: Any, name: str, cfg: dict[str, Any]) -> None:
        if self.no_url is not None:
            raise RuntimeError(self.no_url)  # before any URL: the server refused a client
        flow.published.set()
        assert flow.called_back.wait(WAIT_S)
        if flow.error is not None:
            raise RuntimeError(flow.error)
        _, error = flow.callback
        if error is not None:
            raise RuntimeError(f"OAuth authorization failed: {error}")

    def connect(self, name: str) -> None:
        self.connected.append(name)

    def sign_out(self, name: str) -> bool:
        self.signed_out.append(name)
        return len(self.signed_out) == 1  # held tokens the first time only


SERVERS = {
    "secure": {"url": "https://mcp.example/mcp", "auth": "oauth"},
    "pinned": {
        "url": "https://mcp.example/mcp",
        "auth": "oauth",
        "oauth": {"redirect_uri": "https://mine.example/cb"},
    },
    "keyed": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "x"}},
    "local": {"command": "server"},
}


class Ended:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str | None]] = []
        self._cond = threading.Condition()

    def __call__(self, login_id: str, name: str, error: str | None) -> None:
        with self._cond:
            self.calls.append((login_id, name, error))
            self._cond.notify_all()

    def wait(self, n: int) -> list[tuple[str, str, str | None]]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.calls) >= n, WAIT_S)
            return list(self.calls)


def logins(flows: FakeFlows | None = None) -> tuple[Logins, FakeFlows, Ended]:
    flows = flows or FakeFlows()
    ended = Ended()
    return Logins(flows, lambda: SERVERS, ended), flows, ended


def start(it: Logins, name: str, redirect: str | None) -> McpLoginResult:
    """Logins.start, as the worker's mcp/login calls it: the answer it gave."""
    answers: list[McpLoginResult] = []
    it.start(name, redirect, answers.append)
    [started] = answers
    return started


def test_a_login_gives_the_url_and_ends_signed_in_and_connected_after_its_callback() -> None:
    it, flows, ended = logins()
    started = start(it, "secure", "app://cb")
    assert (started.authorization_url, started.redirect_uri) == (URL, "app://cb")
    assert flows.flows[0].redirect_uri == "app://cb"
    it.callback(started.login_id, "app://cb?code=c1&state=s1")
    assert ended.wait(1) == [(started.login_id, "secure", None)]
    assert flows.flows[0].callback == ("c1", None) and flows.connected == ["secure"]


def test_the_servers_configured_redirect_wins_and_the_query_alone_is_enough() -> None:
    it, flows, ended = logins()
    started = start(it, "pinned", "app://cb")
    assert started.redirect_uri == "https://mine.example/cb"
    it.callback(started.login_id, "error=access_denied&state=s1")
    [(_, _, error)] = ended.wait(1)
    assert error == "OAuth authorization failed: access_denied" and flows.connected == []


def test_a_newer_login_of_the_server_replaces_one_still_waiting() -> None:
    it, _, ended = logins()
    first = start(it, "secure", "app://cb")
    second = start(it, "secure", "app://cb")
    assert ended.wait(1) == [(first.login_id, "secure", REPLACED)]
    with pytest.raises(RpcError) as err:
        it.callback(first.login_id, "?code=c&state=s1")
    assert err.value.kind is ErrorType.UNKNOWN_MCP_LOGIN and err.value.data == {
        "loginId": first.login_id
    }
    it.callback(second.login_id, "?code=c&state=s1")
    assert ended.wait(2)[1] == (second.login_id, "secure", None)


def test_a_login_that_ends_before_its_url_is_mcp_login_failed_and_never_told() -> None:
    it, _, ended = logins(FakeFlows(no_url="registration refused (403)"))
    with pytest.raises(RpcError) as err:
        start(it, "secure", "app://cb")
    assert err.value.kind is ErrorType.MCP_LOGIN_FAILED
    assert err.value.message == "registration refused (403)"
    assert err.value.data == {"name": "secure"}
    assert ended.calls == []


@pytest.mark.parametrize(
    ("name", "redirect", "kind", "data"),
    [
        ("nope", "app://cb", ErrorType.UNKNOWN_MCP_SERVER, {"name": "nope"}),
        ("keyed", "app://cb", ErrorType.INVALID_PARAMS, {"field": "params.name"}),
        ("local", "app://cb", ErrorType.INVALID_PARAMS, {"field": "params.name"}),
        ("secure", None, ErrorType.INVALID_PARAMS, {"field": "params.redirectUri"}),
    ],
)
def test_a_login_that_cannot_start_is_a_named_error_and_starts_nothing(
    name: str, redirect: str | None, kind: ErrorType, data: dict[str, str]
) -> None:
    it, flows, _ = logins()
    with pytest.raises(RpcError) as err:
        start(it, name, redirect)
    assert (err.value.kind, err.value.data) == (kind, data)
    assert flows.flows == []


def test_a_callback_not_of_the_login_is_refused_and_the_login_goes_on() -> None:
    it, _, ended = logins()
    started = start(it, "secure", "app://cb")
    for url in ("app://cb?code=c&state=forged", "app://cb?state=s1", "app://cb"):
        with pytest.raises(RpcError) as err:
            it.callback(started.login_id, url)
        assert (err.value.kind, err.value.data) == (
            ErrorType.INVALID_PARAMS,
            {"field": "params.url"},
        )
    it.callback(started.login_id, "app://cb?code=c&state=s1")
    assert ended.wait(1) == [(started.login_id, "secure", None)]


def test_a_login_that_ends_before_its_answer_went_out_is_told_after_it() -> None:
    connected = threading.Event()

    class Flows(FakeFlows):
        def connect(self, name: str) -> None:
            super().connect(name)
            connected.set()

    it, _, ended = logins(Flows())
    ids: list[str] = []

    def answer(result: McpLoginResult) -> None:  # the callback comes meanwhile
        it.callback(result.login_id, "app://cb?code=c&state=s1")
        assert connected.wait(WAIT_S)  # signed in and connecting: over
        assert ended.calls == []  # its id is not the host's yet
        ids.append(result.login_id)

    it.start("secure", "app://cb", answer)
    assert ended.calls == [(ids[0], "secure", None)]


def test_a_logout_ends_a_login_still_waiting_and_signs_the_server_out() -> None:
    it, flows, ended = logins()
    started = start(it, "secure", "app://cb")
    assert it.logout("secure") is True
    assert ended.wait(1) == [(started.login_id, "secure", SIGNED_OUT)]
    assert flows.signed_out == ["secure"]
    assert it.logout("secure") is False  # nothing held any more


@pytest.mark.parametrize(
    ("name", "kind", "data"),
    [
        ("nope", ErrorType.UNKNOWN_MCP_SERVER, {"name": "nope"}),
        ("local", ErrorType.INVALID_PARAMS, {"field": "params.name"}),
    ],
)
def test_a_logout_of_a_server_without_oauth_is_a_named_error(
    name: str, kind: ErrorType, data: dict[str, str]
) -> None:
    it, flows, _ = logins()
    with pytest.raises(RpcError) as err:
        it.logout(name)
    assert (err.value.kind, err.value.data) == (kind, data)
    assert flows.signed_out == []
