"""``mcp/status``, ``mcp/connect``, ``mcp/login``, ``mcp/loginCallback``,
``mcp/logout``: the profile's MCP servers, through the adapter (``profile_mcp``).

Contract (a mixin of ``WorkerService``, which provides ``adapter``, ``peer``,
``queue``, ``answer_off_reader`` and ``_respond_with``): each is answered off the
reader, those that may wait on a server as slow jobs. A connect answers after at
most ``MCP_CONNECT_WAIT_S``, its slower servers still connecting. A login's end
is told (``worker/mcpLoginEnded``) after its answer (``mcp_login.Logins``).
Errors are ``mcp_login``'s; an agent without MCP servers (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import mcp_login as ml
from ..protocol import toolbox as x
from ..protocol import types as t
from ..protocol.record import Record
from ..transport import Peer
from ..wire import Request
from .contract import AgentAdapter
from .parts import request_error

MCP_CONNECT_WAIT_S = 30.0  # well inside the supervisor's 60 s for any answer


class McpMethods:
    adapter: AgentAdapter
    peer: Peer | None
    answer_off_reader: Callable[..., object]
    queue: Callable[..., object]
    _respond_with: Callable[[Request], Callable[[Record], None]]

    def _h_mcp_status(self, req: Request, p: t.WorkerTarget) -> object:
        return self.answer_off_reader(
            req, "mcp-status", lambda: x.McpStatusResult(self.adapter.mcp_status()), slow=True
        )

    def _h_mcp_connect(self, req: Request, p: t.WorkerTarget) -> object:
        def connect() -> x.McpStatusResult:
            return x.McpStatusResult(self.adapter.connect_mcp_servers(MCP_CONNECT_WAIT_S))

        return self.answer_off_reader(req, "mcp-connect", connect, slow=True)

    def _h_mcp_login(self, req: Request, p: ml.McpLoginParams) -> object:
        def start() -> None:
            assert self.peer is not None
            try:
                self.adapter.mcp_login(p.name, p.redirect_uri, self._respond_with(req))
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))

        return self.queue(req, "mcp-login", start, slow=True)

    def _h_mcp_loginCallback(self, req: Request, p: ml.McpLoginCallbackParams) -> object:
        def deliver() -> ml.McpLoginCallbackResult:
            self.adapter.mcp_login_callback(p.login_id, p.url)
            return ml.McpLoginCallbackResult(p.login_id)

        return self.answer_off_reader(req, "mcp-login", deliver)

    def _h_mcp_logout(self, req: Request, p: ml.McpLogoutParams) -> object:
        def sign_out() -> ml.McpLogoutResult:
            return ml.McpLogoutResult(p.name, self.adapter.mcp_logout(p.name))

        return self.answer_off_reader(req, "mcp-login", sign_out)
