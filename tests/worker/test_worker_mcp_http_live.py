"""``mcp_http_live`` over a stand-in for the MCP SDK's streamable-HTTP transport: a
standing GET stream that opened and then was given up tells ``lost``; one never
opened, or cancelled with its session, tells nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import mcp_http_live
from hermes_stdio.worker.mcp_http_live import LOST


def sdk(answers: list[int | Exception], hold: asyncio.Event | None = None) -> Any:
    """A transport module whose GET stream is answered with ``answers`` in turn (an
    HTTP status, or an error raised before any answer), each open stream then
    ending; it gives up after two failed tries, as the SDK's. With ``hold``, an
    open stream waits on it."""
    module = SimpleNamespace()

    @contextlib.asynccontextmanager
    async def aconnect_sse(client: Any, method: str, url: str, **_: Any) -> AsyncIterator[Any]:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        yield SimpleNamespace(response=SimpleNamespace(status_code=answer))

    class StreamableHTTPTransport:
        async def handle_get_stream(self, client: Any, writer: Any) -> None:
            failures = 0
            while failures < 2:
                try:
                    async with module.aconnect_sse(
                        client, "GET", "http://127.0.0.1:9/mcp"
                    ) as source:
                        if not 200 <= source.response.status_code < 300:
                            raise RuntimeError(f"HTTP {source.response.status_code}")
                        if hold is not None:
                            await hold.wait()
                        failures = 0 if answers else 2  # ended: tried again, or nothing left
                except Exception:  # the SDK's: logged at debug, tried again
                    failures += 1

    module.aconnect_sse = aconnect_sse
    module.StreamableHTTPTransport = StreamableHTTPTransport
    return module


def watched(module: Any) -> list[str]:
    told: list[str] = []
    assert mcp_http_live.install(module, lost=told.append)
    return told


def test_a_stream_that_opened_and_was_given_up_tells_lost_once() -> None:
    module = sdk([200, 404, 404])  # open, then the server forgot the session
    told = watched(module)
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
    assert told == [LOST]


def test_a_stream_given_up_because_the_server_went_away_tells_lost() -> None:
    module = sdk([200, ConnectionRefusedError(), ConnectionRefusedError()])
    told = watched(module)
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
    assert told == [LOST]


def test_a_stream_given_up_on_answers_of_a_server_that_is_up_tells_nothing() -> None:
    module = sdk([200, 409, 409])  # the server still holds the session's old stream
    told = watched(module)
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
    assert told == []


def test_a_stream_never_opened_tells_nothing() -> None:
    module = sdk([405, 405])  # a server that offers no GET stream
    told = watched(module)
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
    assert told == []


def test_a_stream_cancelled_with_its_session_tells_nothing() -> None:
    module = sdk([200], hold=asyncio.Event())
    told = watched(module)

    async def session() -> None:
        stream = asyncio.ensure_future(
            module.StreamableHTTPTransport().handle_get_stream(None, None)
        )
        await asyncio.sleep(0)  # it opens and waits
        stream.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stream

    asyncio.run(session())
    assert told == []


def test_install_is_once_and_refuses_an_sdk_without_the_stream() -> None:
    module = sdk([200, 404, 404])
    told = watched(module)
    assert mcp_http_live.install(module, lost=told.append)  # again: not wrapped twice
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
    assert told == [LOST]
    assert not mcp_http_live.install(SimpleNamespace(), lost=told.append)


def test_a_lost_that_raises_is_logged_and_the_stream_ends_as_it_would() -> None:
    module = sdk([200, 404, 404])

    def broken(why: str) -> None:
        raise RuntimeError("boom")

    assert mcp_http_live.install(module, lost=broken)
    asyncio.run(module.StreamableHTTPTransport().handle_get_stream(None, None))
