"""``mcp_auth_lock`` over the MCP SDK's real ``OAuthClientProvider``: a flow dropped
while it held the provider's lock, and closed later from another task (as asyncio's
async-generator finalizer closes it), leaves the lock free for the next request."""

from __future__ import annotations

import asyncio
import inspect
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from mcp.client.auth import oauth2
from mcp.shared.auth import OAuthClientMetadata

from hermes_stdio.worker import mcp_auth_lock

URL = "http://127.0.0.1:9/mcp"
WAIT_S = 5.0


class Storage:
    async def get_tokens(self) -> None:
        return None

    async def set_tokens(self, tokens: Any) -> None:
        pass

    async def get_client_info(self) -> None:
        return None

    async def set_client_info(self, client_info: Any) -> None:
        pass


def provider_class(fixed: bool) -> type[Any]:
    """A subclass of the SDK's provider (as hermes' is), the lock fix installed on it
    when ``fixed``: the SDK's own class is left as it is."""

    class Provider(oauth2.OAuthClientProvider):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # The SDK's own, even where this process installed the fix on it already.
            inspect.unwrap(oauth2.OAuthClientProvider.__init__)(self, *args, **kwargs)

    if fixed:
        assert mcp_auth_lock.install(
            SimpleNamespace(OAuthClientProvider=Provider, anyio=oauth2.anyio)
        )
    return Provider


async def a_dropped_flow_then_the_next_request(provider_type: type[Any], wait_s: float) -> None:
    metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:9/callback"])  # type: ignore[list-item]
    provider = provider_type(server_url=URL, client_metadata=metadata, storage=Storage())
    request = httpx.Request("POST", URL)
    dropped = provider.async_auth_flow(request)

    async def send() -> None:  # the request goes out: the flow holds the lock
        await dropped.__anext__()

    await asyncio.create_task(send())
    # Its session ended with the request in flight, and it was closed elsewhere.
    await asyncio.gather(asyncio.create_task(dropped.aclose()), return_exceptions=True)
    following = provider.async_auth_flow(request)
    sent = await asyncio.wait_for(following.__anext__(), wait_s)
    assert sent is request
    await following.aclose()


def test_a_flow_closed_by_another_task_frees_the_lock_for_the_next_request() -> None:
    asyncio.run(a_dropped_flow_then_the_next_request(provider_class(fixed=True), WAIT_S))


def test_without_it_the_sdk_keeps_the_lock_and_the_next_request_waits() -> None:
    # What the fix is for: the SDK as it is (1.26) keeps waiting (given half a second).
    with pytest.raises(TimeoutError):
        asyncio.run(a_dropped_flow_then_the_next_request(provider_class(fixed=False), 0.5))


def test_install_is_once_and_refuses_an_sdk_without_the_provider() -> None:
    Provider = provider_class(fixed=True)
    init = Provider.__init__
    assert mcp_auth_lock.install(SimpleNamespace(OAuthClientProvider=Provider, anyio=oauth2.anyio))
    assert Provider.__init__ is init
    assert not mcp_auth_lock.install(SimpleNamespace(anyio=oauth2.anyio))
