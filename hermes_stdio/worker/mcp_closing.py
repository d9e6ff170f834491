"""A closed MCP client session fails the requests still waiting on it at once.

The MCP SDK (1.26) answers each request still waiting when a session's receive
loop ends with its CONNECTION_CLOSED error, but with ``await stream.send`` in
the loop's ``finally``, inside the task group that ``__aexit__`` has just
cancelled: the first send is cancelled, and the callers wait out their read
timeout (hermes' tool timeout: 300 s). A session ends that way when the server
asks to be signed in again (its tokens revoked: hermes cannot sign in without
a user), so an agent's tool call hung for five minutes.

Contract: ``install(session_module)`` (``mcp.shared.session``, imported when not
given) wraps ``BaseSession.__aexit__`` once: after it, each request of the
session still waiting gets the SDK's own CONNECTION_CLOSED error without
waiting, so its ``send_request`` raises ``McpError("Connection closed")`` at
once. Returns False (installing nothing) where the SDK is missing or differs.
"""

from __future__ import annotations

import functools
from typing import Any

from ..transport.log import log

_MARK = "_hermes_stdio_fails_waiting"


def install(session_module: Any = None) -> bool:
    if session_module is None:
        try:
            from mcp.shared import session as session_module
        except ImportError:  # no MCP SDK: no session to close
            return False
    base = getattr(session_module, "BaseSession", None)
    exit_ = getattr(base, "__aexit__", None)
    if base is None or exit_ is None or not hasattr(session_module, "JSONRPCError"):
        log("worker: the MCP SDK changed: a tool call may wait out its timeout")
        return False
    if getattr(base, _MARK, False):
        return True

    @functools.wraps(exit_)
    async def fail_waiting(self: Any, *args: Any) -> Any:
        try:
            return await exit_(self, *args)
        finally:
            _fail_waiting(session_module, self)

    base.__aexit__ = fail_waiting
    setattr(base, _MARK, True)
    return True


def _fail_waiting(module: Any, session: Any) -> None:
    streams = getattr(session, "_response_streams", None)
    if not isinstance(streams, dict):
        return
    for request_id, stream in list(streams.items()):
        error = module.ErrorData(code=module.CONNECTION_CLOSED, message="Connection closed")
        try:  # the waiter's buffer holds one answer: it is free, none came
            stream.send_nowait(module.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
            stream.close()
        except Exception:  # already answered, or closed
            pass
    streams.clear()
