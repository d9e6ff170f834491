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
having had its stream open at least once, and its last try found the server
gone (no answer: unreachable, or an error such as a sign-in it cannot make;
or an answer of 401, 403, 404 or 5xx), ``lost(why)`` is called on the
connection's task (its context variables say which server it is). A stream
never opened (a server without one answers 405), one whose last try was
answered by a server that is up (a 409: a stream of the session still open
there), or one cancelled (its session closing) calls nothing. Returns False,
changing nothing, where the SDK differs.
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


class _Tries:
    """One GET stream's tries: whether one opened, and whether the last found the
    server gone."""

    __slots__ = ("gone", "opened")

    def __init__(self) -> None:
        self.opened = self.gone = False

    def answered(self, status: int) -> None:
        self.opened = self.opened or 200 <= status < 300
        # Gone, forgot the session, or wants a sign-in; a 405 or 409 comes from a
        # server that is up (no stream offered, or one still open for the session).
        self.gone = status in (401, 403, 404) or status >= 500


# The tries of the GET stream whose task this is.
_TRIES: contextvars.ContextVar[_Tries | None] = contextvars.ContextVar(
    "mcp_get_tries", default=None
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
    async def noting_tries(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        tries, answered = _TRIES.get(), False
        try:
            async with connect(*args, **kwargs) as source:
                answered = True
                if tries is not None:
                    response = getattr(source, "response", None)
                    tries.answered(int(getattr(response, "status_code", 0) or 0))
                yield source
        except Exception:
            if tries is not None and not answered:  # no answer: unreachable, or no sign-in
                tries.gone = True
            raise

    @functools.wraps(get_stream)
    async def watched(self: Any, *args: Any, **kwargs: Any) -> None:
        tries = _Tries()
        token = _TRIES.set(tries)
        try:
            await get_stream(self, *args, **kwargs)
        finally:
            _TRIES.reset(token)
        # It returned, not cancelled: the SDK gave the stream up.
        if tries.opened and tries.gone:
            try:
                lost(LOST)
            except Exception as exc:
                log(f"worker: following an HTTP MCP server's stream failed: {exc!r}")

    transport_module.aconnect_sse = noting_tries
    transport.handle_get_stream = watched
    setattr(transport, _MARK, True)
    return True
