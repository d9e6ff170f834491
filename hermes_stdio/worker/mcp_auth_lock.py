"""An MCP OAuth provider's lock is freed when the request that held it is dropped.

The MCP SDK's ``OAuthClientProvider`` (1.26) holds an ``anyio.Lock`` across
each request it authorizes (``async_auth_flow`` yields the request inside
``async with self.context.lock``). When that request is cancelled as its
session ends, httpx's own close of the flow can be cancelled too; the flow
is then closed later by asyncio's async-generator finalizer, in a task of its
own, and ``anyio.Lock`` refuses a release from a task that is not its owner
("The current task is not holding this lock"). The lock stays held for good,
and every later request to the server through the same provider (hermes keeps
one per server) waits on it: an agent's tool call waited out hermes' 300 s
tool timeout. It happened on a loaded machine, after a sign-in's probe
connection closed.

Contract: ``install(oauth2)`` (``mcp.client.auth.oauth2``, imported when not
given) wraps ``OAuthClientProvider.__init__`` once: each provider built from
then on (hermes' subclass included) gets a lock that any task may release
(``anyio.Semaphore(1)``: one flow at a time, as before). Returns False
(installing nothing) where the SDK is missing or differs.
"""

from __future__ import annotations

import functools
from typing import Any

from ..transport.log import log

_MARK = "_hermes_stdio_releasable_lock"


def install(oauth2: Any = None) -> bool:
    if oauth2 is None:
        try:
            from mcp.client.auth import oauth2
        except ImportError:  # no MCP SDK: no provider to fix
            return False
    provider = getattr(oauth2, "OAuthClientProvider", None)
    if provider is None or not hasattr(oauth2, "anyio"):
        log("worker: the MCP SDK changed: a dropped OAuth request may hold its lock")
        return False
    if vars(provider).get(_MARK, False):  # set on the class itself: subclasses inherit it
        return True
    init = provider.__init__
    anyio = oauth2.anyio

    @functools.wraps(init)
    def with_releasable_lock(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        context = getattr(self, "context", None)
        if context is not None and hasattr(context, "lock"):
            context.lock = anyio.Semaphore(1)

    provider.__init__ = with_releasable_lock
    setattr(provider, _MARK, True)
    return True
