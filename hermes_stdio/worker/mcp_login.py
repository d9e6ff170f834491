"""Signing the profile in to an OAuth MCP server for a host (``mcp/login``).

hermes signs in to a server with ``auth: oauth`` through the MCP SDK (metadata
discovery, dynamic client registration, PKCE, the token exchange) and keeps the
tokens in the profile's home. Its CLI opens a browser and listens on a loopback
port for the redirect; its web dashboard instead hands the authorization URL to
its page and takes the redirect's code from it (``tools.mcp_dashboard_oauth``).
A login here is the dashboard's flow with the host in the page's place, so
nothing listens on a socket.

Contract: ``Logins(flows, servers, ended)``, ``flows`` the hermes side
(``HermesFlows``, or a stand-in), ``servers()`` the profile's ``mcp_servers``
now, ``ended(login_id, name, error)`` told once as each login ends:
- ``start(name, redirect_uri, answer)`` calls ``answer`` with the
  ``McpLoginResult`` once hermes has the URL to send the user to (waited for at
  most ``URL_WAIT_S``); the login's end is told after ``answer`` returned. ``unknown_mcp_server``
  (``data.name``) for a name config.yaml does not list; ``invalid_params``
  naming ``params.name`` for a server that is not a ``url`` one with
  ``auth: oauth``, and naming ``params.redirectUri`` when neither it nor the
  server's ``oauth.redirect_uri`` gives one; ``mcp_login_failed``
  (``data.name``, hermes' reason) when hermes ended the flow before a URL (the
  server refused to register a client, say). A login of a server that one
  still waits for replaces that one (which ends: failed).
- ``logout(name)`` (the same checks of ``name``) ends a login of the server
  still waiting (failed: signed out), removes the profile's tokens for it and
  drops its connection, which hermes then tries again without them (and fails:
  it needs a sign-in); whether the profile held tokens.
- ``callback(login_id, url)`` hands the redirect's ``code`` and ``state`` (or
  ``error``) to the flow: ``unknown_mcp_login`` (``data.loginId``) for an id
  not waiting for one, ``invalid_params`` naming ``params.url`` for a state
  that is not the flow's or a URL with neither code nor error.
- A login ends when hermes has the tokens (stored in the profile, then the
  server connected with them: ``flows.connect``), or failed: the user
  declined, the code was refused, no callback came within hermes' 300 s, or a
  newer login replaced it. A failed one leaves the tokens stored before as
  they were (hermes' snapshot and rollback).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlparse

from ..protocol.mcp_login import McpLoginResult
from ..transport.log import log
from ..wire import ErrorType, RpcError
from . import mcp_auth_lock
from .mcp_live import let_go_of_ended
from .sign_in_table import SignInTable

URL_WAIT_S = 30.0  # hermes' dashboard waits as long for the authorization URL
REPLACED_WAIT_S = 10.0  # a replaced login's thread ends once its flow is marked failed
REPLACED = "a newer mcp/login of this server replaced it"
SIGNED_OUT = "mcp/logout signed the profile out of this server"


class Flow(Protocol):
    """hermes' ``DashboardOAuthFlow`` as used here."""

    def wait_url(self, timeout: float) -> str | None: ...

    def deliver_callback(
        self, *, code: str | None, state: str | None, error: str | None
    ) -> None: ...

    def mark_error(self, error: str) -> None: ...


class Flows(Protocol):
    def new(self, login_id: str, name: str, redirect_uri: str) -> Flow: ...

    def sign_in(self, flow: Flow, name: str, cfg: dict[str, Any]) -> None:
        """Run hermes' sign-in (raises why it failed); the tokens are stored after."""
        ...

    def connect(self, name: str) -> None:
        """Connect the server with the tokens now stored (reconnect it if hermes has it)."""
        ...

    def sign_out(self, name: str) -> bool:
        """Remove the server's stored tokens and drop its connection; whether any were."""
        ...


@dataclass
class _Login:
    name: str
    flow: Flow
    thread: threading.Thread | None = None
    answered: bool = False  # its mcp/login answered its id: its end is told
    ended: bool = False
    error: str | None = None
    stopped: str | None = None  # why this side ended it (its error, over hermes' words)

    def stop(self, why: str) -> None:
        self.stopped = self.stopped or why
        self.flow.mark_error(why)


class Logins(SignInTable[_Login]):
    def __init__(
        self,
        flows: Flows,
        servers: Callable[[], dict[str, Any]],
        ended: Callable[[str, str, str | None], None],
    ) -> None:
        super().__init__(ended)
        self._flows, self._servers = flows, servers

    def _oauth_server(self, name: str) -> dict[str, Any]:
        cfg = self._servers().get(name)
        if not isinstance(cfg, dict):
            raise RpcError(ErrorType.UNKNOWN_MCP_SERVER, f"no MCP server {name!r}", name=name)
        if not cfg.get("url") or cfg.get("auth") != "oauth":
            why = f"MCP server {name!r} does not sign in with OAuth (a url and auth: oauth)"
            raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.name")
        return cfg

    def start(
        self, name: str, redirect_uri: str | None, answer: Callable[[McpLoginResult], None]
    ) -> None:
        cfg = self._oauth_server(name)
        oauth = cfg.get("oauth")
        configured = oauth.get("redirect_uri") if isinstance(oauth, dict) else None
        redirect = configured if isinstance(configured, str) and configured else redirect_uri
        if not redirect:
            why = "give the redirectUri the host catches (the server configures none)"
            raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.redirectUri")
        self._replace(name, REPLACED)
        login_id = "login_" + secrets.token_hex(8)
        login = _Login(name, self._flows.new(login_id, name, redirect))
        login.thread = threading.Thread(
            target=self._sign_in, args=(login_id, login, dict(cfg)), name=f"mcp-login-{name}"
        )
        login.thread.daemon = True
        with self._lock:
            self._by_id[login_id] = login
        login.thread.start()
        url = login.flow.wait_url(URL_WAIT_S)
        if url is None:
            login.stop("no authorization URL came in time")
            login.thread.join(REPLACED_WAIT_S)
        if url is None:  # it ended before there was anything to tell the host
            with self._lock:
                self._by_id.pop(login_id, None)
                error = login.error or "no authorization URL came in time"
            raise RpcError(ErrorType.MCP_LOGIN_FAILED, error, name=name)
        answer(McpLoginResult(login_id, url, redirect))
        self._answered(login_id, login, name)

    def callback(self, login_id: str, url: str) -> None:
        with self._lock:
            login = self._by_id.get(login_id)
        if login is None:
            why = f"no sign-in {login_id!r} waits for its callback"
            raise RpcError(ErrorType.UNKNOWN_MCP_LOGIN, why, loginId=login_id)
        query = parse_qs(urlparse(url).query or url)
        code, state, error = (query.get(k, [None])[0] for k in ("code", "state", "error"))
        if code is None and error is None:
            why = "the URL holds neither a code nor an error"
            raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.url")
        try:
            login.flow.deliver_callback(code=code, state=state, error=error)
        except ValueError as exc:  # not this flow's state, or a second callback
            raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params.url") from exc

    def logout(self, name: str) -> bool:
        self._oauth_server(name)
        self._replace(name, SIGNED_OUT)
        return self._flows.sign_out(name)

    def _replace(self, name: str, why: str) -> None:
        with self._lock:
            old = [login for login in self._by_id.values() if login.name == name]
        for login in old:
            login.stop(why)
            if login.thread is not None:
                login.thread.join(REPLACED_WAIT_S)

    def _sign_in(self, login_id: str, login: _Login, cfg: dict[str, Any]) -> None:
        name, error = login.name, None
        try:
            self._flows.sign_in(login.flow, name, cfg)
        except Exception as exc:
            error = login.stopped or str(exc).strip() or type(exc).__name__
            login.flow.mark_error(error)
            log(f"worker: signing in to MCP server {name!r} failed: {error}")
        with self._lock:
            told = self._finish(login_id, login, error)
        if told:  # before the server's status: signed in, then connecting, connected
            self._ended(login_id, name, error)
        if error is None:
            try:
                self._flows.connect(name)
            except Exception as exc:
                log(f"worker: connecting MCP server {name!r} after its sign-in failed: {exc!r}")


SIGN_IN_FLOOR_S = 315.0  # hermes' callback window (300 s) and headroom, as its CLI


class _HermesFlow:
    """hermes' ``DashboardOAuthFlow``, waited on from a plain thread."""

    def __init__(self, flow: Any) -> None:
        self.hermes = flow

    def wait_url(self, timeout: float) -> str | None:
        try:
            url = asyncio.run(self.hermes.wait_for_authorization_url(timeout))
        except Exception:  # timed out, or the flow ended first
            return None
        return url if isinstance(url, str) else None

    def deliver_callback(self, *, code: str | None, state: str | None, error: str | None) -> None:
        self.hermes.deliver_callback(code=code, state=state, error=error)

    def mark_error(self, error: str) -> None:
        self.hermes.mark_error(error)


class HermesFlows:
    """The sign-in as hermes' web dashboard runs it (``web_server._run_dashboard_mcp_oauth``):
    the server's stored state wiped for a fresh flow, then hermes' probe of the server
    under the dashboard flow, which yields a token or raises; on a failure the
    state stored before is put back. ``connect_all()`` connects the profile's
    servers hermes holds no connection of (``mcp/connect``'s)."""

    def __init__(self, connect_all: Callable[[], None]) -> None:
        self._connect_all = connect_all

    def new(self, login_id: str, name: str, redirect_uri: str) -> Flow:
        from hermes_constants import get_hermes_home
        from tools.mcp_dashboard_oauth import DashboardOAuthFlow

        home = str(get_hermes_home())
        flow = DashboardOAuthFlow(login_id, name, None, home, redirect_uri)
        return _HermesFlow(flow)

    def sign_in(self, flow: Flow, name: str, cfg: dict[str, Any]) -> None:
        from hermes_cli.mcp_config import _oauth_tokens_present, _probe_single_server
        from tools.mcp_dashboard_oauth import dashboard_oauth_flow
        from tools.mcp_oauth import HermesTokenStorage, force_interactive_oauth
        from tools.mcp_oauth_manager import get_manager

        mcp_auth_lock.install()  # before hermes builds the server's provider
        hermes: Any = flow.hermes if isinstance(flow, _HermesFlow) else flow
        wait_s = max(float(cfg.get("connect_timeout") or 0), SIGN_IN_FLOOR_S)
        with force_interactive_oauth(), dashboard_oauth_flow(hermes):
            manager, storage = get_manager(), HermesTokenStorage(name)
            stored = storage.snapshot()
            previous = None
            try:
                previous = manager.remove(name)
                _probe_single_server(name, cfg, connect_timeout=wait_s)
                if not _oauth_tokens_present(name):
                    raise RuntimeError("the server answered without a sign-in: no token came")
                hermes.mark_approved()
            except BaseException:
                storage.restore(stored)  # the tokens it had before, as they were
                manager.restore_entry(name, previous)
                raise

    def sign_out(self, name: str) -> bool:
        from tools import mcp_tool
        from tools.mcp_oauth import HermesTokenStorage
        from tools.mcp_oauth_manager import get_manager

        had = HermesTokenStorage(name).has_cached_tokens()
        get_manager().remove(name)  # hermes' `mcp remove`: the cached provider and the files
        with mcp_tool._lock:
            held = name in mcp_tool._servers
        if held:  # its session still holds a token: it reconnects without one, and fails
            mcp_tool.reconnect_mcp_server(name)
        return bool(had)

    def connect(self, name: str) -> None:
        from tools import mcp_tool

        let_go_of_ended(mcp_tool, name)  # nothing would hear its reconnect
        if not mcp_tool.reconnect_mcp_server(name):
            self._connect_all()  # mcp/connect's: starts the servers hermes does not hold
