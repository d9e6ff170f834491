"""mcp_closing: a session's exit answers the requests still waiting on it with the
SDK's CONNECTION_CLOSED error at once, even when its own answering was cancelled."""

from __future__ import annotations

import contextlib
import types
from typing import Any

import anyio
import mcp.types as mt
import pytest

from hermes_stdio.worker import mcp_closing


def fake_sdk() -> Any:
    """``mcp.shared.session`` as far as install() reads it: a BaseSession whose exit
    answers nobody (as the SDK's, when its task group was cancelled first)."""

    class BaseSession:
        def __init__(self) -> None:
            self._response_streams: dict[Any, Any] = {}

        async def __aexit__(self, *exc: object) -> None:
            return None

    return types.SimpleNamespace(
        BaseSession=BaseSession,
        ErrorData=mt.ErrorData,
        JSONRPCError=mt.JSONRPCError,
        CONNECTION_CLOSED=mt.CONNECTION_CLOSED,
    )


def test_a_request_still_waiting_when_its_session_exits_gets_connection_closed() -> None:
    sdk = fake_sdk()
    assert mcp_closing.install(sdk) and mcp_closing.install(sdk)  # once

    async def main() -> tuple[Any, Any]:
        session = sdk.BaseSession()
        waiting, reader = anyio.create_memory_object_stream[Any](1)
        answered, answered_reader = anyio.create_memory_object_stream[Any](1)
        await answered.send("the answer")  # answered already: its buffer is full
        session._response_streams.update({7: waiting, 8: answered})
        await session.__aexit__(None, None, None)
        assert session._response_streams == {}
        return await reader.receive(), await answered_reader.receive()

    error, answer = anyio.run(main)
    assert isinstance(error, mt.JSONRPCError)
    assert (error.id, error.error.code) == (7, mt.CONNECTION_CLOSED)
    assert answer == "the answer"


def test_an_sdk_without_what_it_wraps_is_left_alone() -> None:
    assert mcp_closing.install(types.SimpleNamespace()) is False


@pytest.mark.parametrize("exc", [RuntimeError("transport failed"), None])
def test_the_waiters_are_answered_whether_the_exit_raised_or_not(exc: Exception | None) -> None:
    sdk = fake_sdk()

    async def exit_(self: Any, *args: object) -> None:
        if exc is not None:
            raise exc

    sdk.BaseSession.__aexit__ = exit_
    mcp_closing.install(sdk)

    async def main() -> Any:
        session = sdk.BaseSession()
        waiting, reader = anyio.create_memory_object_stream[Any](1)
        session._response_streams[1] = waiting
        with contextlib.suppress(RuntimeError):
            await session.__aexit__(None, None, None)
        return await reader.receive()

    assert anyio.run(main).error.code == mt.CONNECTION_CLOSED
