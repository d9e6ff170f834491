"""worker.parts.request_error: the one mapping of a failed request to its answer."""

from __future__ import annotations

import pytest

from hermes_stdio.wire import ErrorType, RpcError
from hermes_stdio.worker.contract import AgentUnavailable
from hermes_stdio.worker.parts import request_error


def test_a_missing_agent_is_agent_unavailable_with_its_message() -> None:
    error = request_error(AgentUnavailable("no hermes here"))
    assert isinstance(error, RpcError)
    assert (error.kind, error.message) == (ErrorType.AGENT_UNAVAILABLE, "no hermes here")


def test_an_rpc_error_is_itself_and_anything_else_internal_with_the_trace_on_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    refused = RpcError(ErrorType.UNKNOWN_SESSION, "gone", sessionId="s")
    assert request_error(refused) == refused.to_wire()
    crashed = request_error(ValueError("secret detail"))
    assert crashed == RpcError(ErrorType.INTERNAL_ERROR).to_wire()
    assert "secret detail" not in str(crashed)
    out, err = capfd.readouterr()
    assert "ValueError: secret detail" in err and out == ""
