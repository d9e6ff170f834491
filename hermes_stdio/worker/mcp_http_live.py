"""A streamable-HTTP MCP server that went away is noticed in seconds.

hermes finds a dead HTTP MCP server only at its next keepalive (180 s by
default) or a failed tool call: there is no process to watch. But the MCP
SDK's client keeps a standing GET stream open to the server (what the server
pushes its own messages on), and that stream breaks as soon as the server
goes away, or forgets the session. The SDK then tries it again twice, a
second apart, and gives up for good without a word
(``StreamableHTTPTransport.handle_get_stream``, 1.26).

Contract: ``install(transport_module, lost)`` (``mcp.client.streamable_http``,
imported when not given) wraps ``handle_get_stream`` once: when it gives up,
having had its stream open at least once, ``lost(why)`` is called on the
connection's task (its context variables say which server it is). A stream
never opened (a server without one answers 405) or cancelled (its session
closing) calls nothing. Returns False, changing nothing, where the SDK
differs.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..transport.log import log

LOST = "the server's event stream broke and could not be opened again"
_MARK = "_hermes_stdio_get_stream_watched"
# Whether this GET stream opened (set in the stream's own task).
_OPENED: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar(
    "mcp_get_stream_opened", default=None
)


def install(transport_module: Any = None, *, lost: Callable[[str], None]) -> bool:
    if transport_module is None:
        try:
            from mcp.client import streamable_http as transport_module
        except ImportError:  # no MCP SDK: no HTTP server connects
            return False
    transport: Any = getattr(transport_module, "StreamableHTTPTransport", None)
    get_stream = getattr(transport, "handle_get_stream", None)
    connect = getattr(transport_module, "aconnect_sse", None)
    if get_stream is None or connect is None:
        log("worker: the MCP SDK changed: a dead HTTP MCP server shows late")
        return False
    if vars(transport).get(_MARK, False):
        return True

    @contextlib.asynccontextmanager
    async def noting_open(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with connect(*args, **kwargs) as source:
            opened = _OPENED.get()
            response = getattr(source, "response", None)
            if opened is not None and getattr(response, "is_success", False):
                opened[0] = True
            yield source

    @functools.wraps(get_stream)
    async def watched(self: Any, *args: Any, **kwargs: Any) -> None:
        opened = [False]
        token = _OPENED.set(opened)
        try:
            await get_stream(self, *args, **kwargs)
        finally:
            _OPENED.reset(token)
        if opened[0]:  # it returned, not cancelled: the SDK gave the stream up
            try:
                lost(LOST)
            except Exception as exc:
                log(f"worker: following an HTTP MCP server's stream failed: {exc!r}")

    transport_module.aconnect_sse = noting_open
    transport.handle_get_stream = watched
    setattr(transport, _MARK, True)
    return True
