"""ErrorType / RpcError / to_wire_error: every code named once, every error typed."""

from __future__ import annotations

import re

import pytest

from hermes_stdio.wire import BY_CODE, BY_TYPE, ErrorType, RpcError, to_wire_error

STANDARD_CODES = {-32700, -32600, -32601, -32602, -32603, -32002, -32800}


def test_every_error_code_is_unique():
    codes = [e.code for e in ErrorType]
    assert len(codes) == len(set(codes))
    assert set(BY_CODE) == set(codes)


def test_every_error_type_is_unique_snake_case():
    types = [e.type for e in ErrorType]
    assert len(types) == len(set(types))
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", t) for t in types)
    assert set(BY_TYPE) == set(types)


def test_application_codes_are_within_the_reserved_server_range():
    for e in ErrorType:
        if e.code not in STANDARD_CODES:
            assert -32099 <= e.code <= -32000, e


def test_standard_json_rpc_codes_keep_their_numbers():
    assert ErrorType.PARSE_ERROR.code == -32700
    assert ErrorType.INVALID_REQUEST.code == -32600
    assert ErrorType.METHOD_NOT_FOUND.code == -32601
    assert ErrorType.INVALID_PARAMS.code == -32602
    assert ErrorType.INTERNAL_ERROR.code == -32603
    assert ErrorType.SERVER_NOT_INITIALIZED.code == -32002
    assert ErrorType.REQUEST_CANCELLED.code == -32800


def test_every_error_type_has_a_summary():
    assert all(e.summary for e in ErrorType)


def test_an_rpc_error_on_the_wire_carries_code_message_and_data_type():
    err = RpcError(ErrorType.SESSION_BUSY, "busy now", sessionId="s1", runId="r1")
    assert err.to_wire() == {
        "code": ErrorType.SESSION_BUSY.code,
        "message": "busy now",
        "data": {"type": ErrorType.SESSION_BUSY.type, "sessionId": "s1", "runId": "r1"},
    }


def test_an_rpc_error_without_a_message_uses_the_summary():
    err = RpcError(ErrorType.UNKNOWN_RUN)
    assert err.message == ErrorType.UNKNOWN_RUN.summary
    assert str(err) == ErrorType.UNKNOWN_RUN.summary


def test_an_error_rebuilt_from_the_wire_keeps_its_type_message_and_data():
    wire = RpcError(ErrorType.WORKER_TIMEOUT, "slow", method="run/start").to_wire()
    back = RpcError.from_wire(wire)
    assert back.kind is ErrorType.WORKER_TIMEOUT
    assert back.message == "slow"
    assert back.data == {"method": "run/start"}
    assert back.to_wire() == wire


def test_an_error_from_the_wire_without_data_type_falls_back_to_its_code():
    back = RpcError.from_wire({"code": ErrorType.METHOD_NOT_FOUND.code, "message": "m"})
    assert back.kind is ErrorType.METHOD_NOT_FOUND


def test_an_unknown_error_from_the_wire_becomes_internal_error():
    back = RpcError.from_wire({"code": 12345, "message": "?", "data": {"type": "weird"}})
    assert back.kind is ErrorType.INTERNAL_ERROR


def test_to_wire_error_passes_rpc_errors_through():
    err = RpcError(ErrorType.UNKNOWN_RUN, "nope", sessionId="s")
    assert to_wire_error(err) == err.to_wire()


def test_an_unexpected_exception_becomes_a_generic_internal_error_and_nothing_is_written(
    capfd: pytest.CaptureFixture[str],
):
    try:
        raise ValueError("secret detail 12345")
    except ValueError as exc:
        wire = to_wire_error(exc)
    assert wire["code"] == ErrorType.INTERNAL_ERROR.code
    assert wire["data"] == {"type": ErrorType.INTERNAL_ERROR.type}
    assert "secret detail 12345" not in str(wire)
    assert capfd.readouterr() == ("", "")  # the I/O layers report it (report_error)
