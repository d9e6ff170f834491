"""The profile's MCP servers for ``adapter.HermesAdapter``: connected, reported and
signed in to through hermes' own machinery.

Contract: ``HermesMcp`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent under ``_import_lock``) and implements the
``contract.AgentAdapter`` MCP methods: ``watch_mcp`` and ``watch_mcp_logins``
(set before the servers start), ``connect_mcp`` (starts them, once the
profile's environment is final), ``mcp_status``, ``connect_mcp_servers``
(``mcp.McpServers``), ``mcp_login``, ``mcp_login_callback`` and ``mcp_logout``
(``mcp_login.Logins`` over hermes' dashboard flow, ``mcp_login.HermesFlows``).
``_mcp`` is None until the servers are started (``shutdown`` closes them).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from ..protocol.mcp_login import McpLoginResult
from ..protocol.toolbox import McpServerInfo
from .mcp import McpServers
from .mcp_login import HermesFlows, Logins
from .options import lists_mcp_servers

LOGIN_CONNECT_S = 30.0  # as mcp/connect: a slower server goes on in the background

LoginEnded = Callable[[str, str, str | None], None]


def _signed_in(name: str) -> bool:
    from tools.mcp_oauth import HermesTokenStorage  # the profile's mcp-tokens/

    return bool(HermesTokenStorage(name).has_cached_tokens())


class HermesMcp:
    _modules: Callable[[], Any]
    _import_lock: threading.Lock
    _mcp_changed: Callable[[list[McpServerInfo]], None] | None = None
    _mcp_login_ended: LoginEnded | None = None
    _mcp: McpServers | None = None
    _logins: Logins | None = None

    def watch_mcp(self, deliver: Callable[[list[McpServerInfo]], None]) -> None:
        self._mcp_changed = deliver  # used once the MCP servers are started

    def watch_mcp_logins(self, deliver: LoginEnded) -> None:
        self._mcp_login_ended = deliver

    def connect_mcp(self) -> None:
        self._mcp_servers()

    def _mcp_servers(self) -> McpServers:
        self._modules()
        with self._import_lock:
            if self._mcp is None:
                from hermes_cli import mcp_startup

                tools = lambda: importlib.import_module("tools.mcp_tool")  # noqa: E731
                self._mcp = McpServers(
                    mcp_startup, tools, lists_mcp_servers, self._mcp_changed, _signed_in
                )
                self._mcp.start()
            return self._mcp

    def mcp_status(self) -> list[McpServerInfo]:
        return self._mcp_servers().status()

    def connect_mcp_servers(self, wait_s: float) -> list[McpServerInfo]:
        servers = self._mcp_servers()
        servers.connect(wait_s)
        return servers.status()

    def mcp_login(
        self, name: str, redirect_uri: str | None, answer: Callable[[McpLoginResult], None]
    ) -> None:
        self._mcp_logins().start(name, redirect_uri, answer)

    def mcp_login_callback(self, login_id: str, url: str) -> None:
        self._mcp_logins().callback(login_id, url)

    def mcp_logout(self, name: str) -> bool:
        return self._mcp_logins().logout(name)

    def _mcp_logins(self) -> Logins:
        servers = self._mcp_servers()
        with self._import_lock:
            if self._logins is None:
                from hermes_cli.mcp_config import _get_mcp_servers

                def ended(login_id: str, name: str, error: str | None) -> None:
                    if self._mcp_login_ended is not None:
                        self._mcp_login_ended(login_id, name, error)

                flows = HermesFlows(lambda: servers.connect(LOGIN_CONNECT_S))
                self._logins = Logins(flows, _get_mcp_servers, ended)
            return self._logins
