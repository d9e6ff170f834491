"""Signing a profile in to an OAuth MCP server through the real binary and real
hermes-agent, against a local MCP server that is its own authorization server
(the MCP SDK's: discovery, client registration, PKCE, tokens): the host gets the
URL to open, plays the browser, hands back where the browser was sent, and the
server's tools reach the profile's agents; a declined or replaced sign-in ends
failed; bad input is a named error."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError
from hermes_stdio.worker.mcp_login import REPLACED

from .conftest import serving, worker_pids
from .test_mcp import SERVER as ECHO_SERVER

OAUTH_SERVER = Path(__file__).with_name("fixtures") / "mcp_oauth_server.py"
REDIRECT = "http://127.0.0.1:9/callback"  # the host catches it: nothing listens there


def serve(tokens: Path) -> tuple[subprocess.Popen[str], int]:
    """The OAuth server, on a free port: its process and port."""
    return serving(OAUTH_SERVER, str(tokens))


@pytest.fixture
def secure(home: Path, tmp_path: Path) -> Iterator[Path]:
    """The OAuth server, listed in profile work as ``secure`` (and a stdio ``echo``);
    the file of the tokens it issued."""
    tokens = tmp_path / "issued-tokens"
    proc, port = serve(tokens)
    try:
        config_path = home / "profiles" / "work" / "config.yaml"
        config = yaml.safe_load(config_path.read_text())
        config["mcp_servers"] = {
            "secure": {"url": f"http://127.0.0.1:{port}/mcp", "auth": "oauth"},
            "echo": {"command": sys.executable, "args": [str(ECHO_SERVER)]},
        }
        config["mcp_discovery_timeout"] = 60
        config_path.write_text(yaml.safe_dump(config))
        yield tokens
    finally:
        proc.kill()
        proc.wait(10)


def server_is(name: str, status: str) -> Any:
    def match(n: Notification) -> bool:
        return n.method == "mcp/statusChanged" and any(
            s["name"] == name and s["status"] == status for s in n.params["servers"]
        )

    return match


def redirected(authorization_url: str) -> str:
    """The browser's part: open the URL, the user says yes; where it is sent back."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    try:
        urllib.request.build_opener(Stay).open(authorization_url, timeout=30)
    except urllib.error.HTTPError as answer:
        assert answer.code in (302, 307)
        return str(answer.headers["Location"])
    raise AssertionError("the authorization server did not redirect")


def login(host: HostClient, **params: Any) -> dict[str, Any]:
    return host.request("mcp/login", {"profile": "work", "name": "secure", **params})


def failed_at_start(host: HostClient) -> dict[str, Any]:
    """The worker started and tried the server: with no token it could not connect.
    Its status then."""
    host.request("mcp/status", {"profile": "work"})
    pushed = host.wait_for(server_is("secure", "failed"), timeout=60).params
    return next(s for s in pushed["servers"] if s["name"] == "secure")


def test_a_host_signs_a_profile_in_and_the_servers_tools_reach_its_agents(
    host: HostClient, llm: ScriptedLLM, home: Path, secure: Path
) -> None:
    before = failed_at_start(host)
    assert (before["auth"], before["signedIn"]) == ("oauth", False)  # a sign-in shows
    started = login(host, redirectUri=REDIRECT)
    assert set(started) == {"loginId", "authorizationUrl", "redirectUri"}
    assert started["redirectUri"] == REDIRECT
    back = redirected(started["authorizationUrl"])
    assert back.startswith(REDIRECT + "?")

    answer = host.request(
        "mcp/loginCallback", {"profile": "work", "loginId": started["loginId"], "url": back}
    )
    assert answer == {"loginId": started["loginId"]}
    done = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60)
    assert done.params == {
        "profile": "work",
        "workerKey": None,
        "loginId": started["loginId"],
        "name": "secure",
        "ok": True,
        "error": None,
    }
    connected = host.wait_for(server_is("secure", "connected"), timeout=60).params
    after = {s["name"]: s for s in connected["servers"]}
    assert after["secure"]["tools"] >= 1
    assert (after["secure"]["auth"], after["secure"]["signedIn"]) == ("oauth", True)
    assert (after["echo"]["auth"], after["echo"]["signedIn"]) == (None, None)
    work, default = home / "profiles" / "work", home
    assert (work / "mcp-tokens" / "secure.json").exists()  # the profile's own
    assert not (default / "mcp-tokens").exists()

    llm.enqueue(Reply.tool_call("mcp__secure__whoami", {}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "who am I?", "profile": "work"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "signed in to secure" in str(results[-1]["content"])
    assert len(secure.read_text().split()) == 1  # one token issued, and it was used


def test_a_declined_sign_in_ends_failed_and_the_server_stays_failed(
    host: HostClient, secure: Path
) -> None:
    failed_at_start(host)
    started = login(host, redirectUri=REDIRECT)
    state = parse_qs(urlparse(started["authorizationUrl"]).query)["state"][0]
    declined = f"{REDIRECT}?error=access_denied&state={state}"
    host.request(
        "mcp/loginCallback", {"profile": "work", "loginId": started["loginId"], "url": declined}
    )
    done = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params
    assert (done["loginId"], done["ok"]) == (started["loginId"], False)
    assert "access_denied" in done["error"]
    [status] = [
        s
        for s in host.request("mcp/status", {"profile": "work"})["servers"]
        if s["name"] == "secure"
    ]
    assert status["status"] == "failed"
    assert not secure.exists()  # no token was issued


def test_a_newer_sign_in_replaces_one_still_waiting(host: HostClient, secure: Path) -> None:
    failed_at_start(host)
    first = login(host, redirectUri=REDIRECT)
    second = login(host, redirectUri=REDIRECT)
    ended = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params
    assert (ended["loginId"], ended["ok"], ended["error"]) == (first["loginId"], False, REPLACED)
    with pytest.raises(RpcError) as err:  # the first waits for nothing any more
        host.request(
            "mcp/loginCallback",
            {"profile": "work", "loginId": first["loginId"], "url": "?code=x&state=y"},
        )
    assert err.value.kind is ErrorType.UNKNOWN_MCP_LOGIN
    back = redirected(second["authorizationUrl"])
    host.request(
        "mcp/loginCallback", {"profile": "work", "loginId": second["loginId"], "url": back}
    )
    done = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params
    assert (done["loginId"], done["ok"]) == (second["loginId"], True)


@pytest.mark.parametrize(
    ("params", "kind", "data"),
    [
        ({"name": "nope", "redirectUri": REDIRECT}, ErrorType.UNKNOWN_MCP_SERVER, {"name": "nope"}),
        (
            {"name": "echo", "redirectUri": REDIRECT},
            ErrorType.INVALID_PARAMS,
            {"field": "params.name"},
        ),
        ({}, ErrorType.INVALID_PARAMS, {"field": "params.redirectUri"}),
        ({"redirectUri": ""}, ErrorType.INVALID_PARAMS, {"field": "params.redirectUri"}),
    ],
    ids=["unknown-server", "stdio-server", "no-redirect", "empty-redirect"],
)
def test_a_sign_in_that_cannot_start_is_a_named_error(
    host: HostClient, secure: Path, params: dict[str, Any], kind: ErrorType, data: dict[str, Any]
) -> None:
    with pytest.raises(RpcError) as err:
        login(host, **params)
    assert err.value.kind is kind
    assert {k: err.value.data[k] for k in data} == data


def test_a_callback_that_is_not_the_sign_ins_is_refused_and_it_goes_on(
    host: HostClient, secure: Path
) -> None:
    started = login(host, redirectUri=REDIRECT)
    target = {"profile": "work", "loginId": started["loginId"]}
    for url, kind, data in (
        (f"{REDIRECT}?code=abc&state=forged", ErrorType.INVALID_PARAMS, {"field": "params.url"}),
        (REDIRECT, ErrorType.INVALID_PARAMS, {"field": "params.url"}),
    ):
        with pytest.raises(RpcError) as err:
            host.request("mcp/loginCallback", {**target, "url": url})
        assert err.value.kind is kind and err.value.data["field"] == data["field"]
    with pytest.raises(RpcError) as err:
        host.request("mcp/loginCallback", {**target, "loginId": "login_none", "url": "?code=a"})
    assert err.value.kind is ErrorType.UNKNOWN_MCP_LOGIN
    assert err.value.data["loginId"] == "login_none"

    host.request("mcp/loginCallback", {**target, "url": redirected(started["authorizationUrl"])})
    done = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params
    assert done["ok"] is True


def test_a_failed_sign_in_leaves_the_tokens_stored_before_as_they_were(
    host: HostClient, home: Path, secure: Path
) -> None:
    failed_at_start(host)
    first = login(host, redirectUri=REDIRECT)
    target = {"profile": "work", "loginId": first["loginId"]}
    host.request("mcp/loginCallback", {**target, "url": redirected(first["authorizationUrl"])})
    assert host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params["ok"]
    tokens = home / "profiles" / "work" / "mcp-tokens"
    before = {p.name: p.read_bytes() for p in tokens.iterdir()}

    again = login(host, redirectUri=REDIRECT)
    state = parse_qs(urlparse(again["authorizationUrl"]).query)["state"][0]
    declined = f"{REDIRECT}?error=access_denied&state={state}"
    host.request("mcp/loginCallback", {**target, "loginId": again["loginId"], "url": declined})
    done = host.wait_for(lambda n: n.method == "mcp/loginCompleted", timeout=60).params
    assert (done["loginId"], done["ok"]) == (again["loginId"], False)
    assert {p.name: p.read_bytes() for p in tokens.iterdir()} == before


def test_a_sign_in_whose_worker_dies_ends_failed_once_before_worker_exited(
    host: HostClient, secure: Path
) -> None:
    failed_at_start(host)
    started = login(host, redirectUri=REDIRECT)
    os.kill(worker_pids(host)[("work", None)], signal.SIGKILL)
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=60).params
    completions = [
        m.params
        for _, m in host.received
        if isinstance(m, Notification) and m.method == "mcp/loginCompleted"
    ]
    assert completions == [
        {"profile": "work", "workerKey": None, "loginId": started["loginId"], "name": "secure",
         "ok": False, "error": f"the worker exited ({exited['signal']})"}
    ]  # fmt: skip


def signed_in(host: HostClient, home: Path) -> Path:
    """The worker failed the server, then signed in and connected it: where its
    tokens are."""
    failed_at_start(host)
    started = login(host, redirectUri=REDIRECT)
    back = redirected(started["authorizationUrl"])
    host.request(
        "mcp/loginCallback", {"profile": "work", "loginId": started["loginId"], "url": back}
    )
    host.wait_for(server_is("secure", "connected"), timeout=60)
    tokens = home / "profiles" / "work" / "mcp-tokens"
    assert (tokens / "secure.json").exists()
    return tokens


def test_a_logout_removes_the_tokens_and_the_server_fails_until_the_next_sign_in(
    host: HostClient, llm: ScriptedLLM, home: Path, secure: Path
) -> None:
    tokens = signed_in(host, home)

    out = host.request("mcp/logout", {"profile": "work", "name": "secure"}, timeout=60)
    assert out == {"name": "secure", "signedOut": True}
    assert not (tokens / "secure.json").exists()
    failed = host.wait_for(server_is("secure", "failed"), timeout=60).params
    [status] = [s for s in failed["servers"] if s["name"] == "secure"]
    assert status["signedIn"] is False
    again = host.request("mcp/logout", {"profile": "work", "name": "secure"}, timeout=60)
    assert again == {"name": "secure", "signedOut": False}
    with pytest.raises(RpcError) as err:
        host.request("mcp/logout", {"profile": "work", "name": "echo"})
    assert (err.value.kind, err.value.data) == (ErrorType.INVALID_PARAMS, {"field": "params.name"})


def test_mcp_connect_starts_afresh_a_server_hermes_gave_up_on_once_it_can_sign_in_again(
    host: HostClient, llm: ScriptedLLM, home: Path, secure: Path, tmp_path: Path
) -> None:
    tokens = signed_in(host, home)
    kept = tmp_path / "kept-tokens"
    shutil.copytree(tokens, kept)
    host.request("mcp/logout", {"profile": "work", "name": "secure"}, timeout=60)
    # Reconnected without a token, the server refused it: hermes' task for it ended.
    host.wait_for(server_is("secure", "failed"), timeout=60)
    shutil.copytree(kept, tokens, dirs_exist_ok=True)  # as `hermes mcp login` in a terminal

    servers = host.request("mcp/connect", {"profile": "work"}, timeout=60)["servers"]
    [status] = [s for s in servers if s["name"] == "secure"]
    assert (status["status"], status["signedIn"]) == ("connected", True)
    llm.enqueue(Reply.tool_call("mcp__secure__whoami", {}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "who am I?", "profile": "work"})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "signed in to secure" in str(results[-1]["content"])


def test_a_tool_call_whose_tokens_the_server_revoked_fails_instead_of_waiting_out_its_timeout(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    tokens = tmp_path / "revoking-tokens"
    proc, port = serve(tokens)
    config_path = home / "profiles" / "work" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["mcp_servers"] = {"secure": {"url": f"http://127.0.0.1:{port}/mcp", "auth": "oauth"}}
    config["mcp_discovery_timeout"] = 60
    config_path.write_text(yaml.safe_dump(config))
    try:
        failed_at_start(host)
        started = login(host, redirectUri=REDIRECT)
        back = redirected(started["authorizationUrl"])
        callback = {"profile": "work", "loginId": started["loginId"], "url": back}
        host.request("mcp/loginCallback", callback)
        host.wait_for(server_is("secure", "connected"), timeout=60)
        proc.send_signal(signal.SIGUSR1)  # the provider revokes every token, and serves on
        assert proc.stdout is not None
        assert select.select([proc.stdout], [], [], 30)[0]
        assert proc.stdout.readline().strip() == "revoked"

        llm.enqueue(Reply.tool_call("mcp__secure__whoami", {}), Reply.text(["done"]))
        run = host.request("run/start", {"message": "who am I?", "profile": "work"})
        # hermes' tool timeout is 300 s: a call left waiting on the closed session
        # would still wait when this gives up
        assert host.wait_run_completed(run["runId"], timeout=120).params["status"] == "complete"
        results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert "Connection closed" in str(results[-1]["content"])
    finally:
        proc.kill()
        proc.wait(10)
