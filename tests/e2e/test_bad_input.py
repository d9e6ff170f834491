"""Bad input through the real binary: a clear JSON-RPC error, and the server keeps serving."""

from __future__ import annotations

import json

import pytest

from hermes_stdio.protocol import HOST_METHODS
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError, encode_frame

from .conftest import StartHost


def still_serving(host: HostClient) -> None:
    assert host.request("supervisor/status")["pid"] == host.proc.pid


def error_of(host: HostClient, msg_id: object) -> dict[str, object]:
    resp = host.response(msg_id)
    assert resp.error is not None, resp
    return resp.error


def test_invalid_json_gets_a_parse_error_with_a_null_id(host: HostClient) -> None:
    host.send_body(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    err = error_of(host, None)
    assert err["code"] == ErrorType.PARSE_ERROR.code
    assert err["data"] == {"type": "parse_error"}
    still_serving(host)


def test_a_body_that_is_not_utf8_gets_a_parse_error(host: HostClient) -> None:
    host.send_body(b'{"jsonrpc":"2.0","id":1,"method":"x\xff\xfe"}')
    assert error_of(host, None)["code"] == ErrorType.PARSE_ERROR.code
    still_serving(host)


def test_a_batch_is_refused_as_an_invalid_request(host: HostClient) -> None:
    host.send_body(b'[{"jsonrpc":"2.0","id":1,"method":"supervisor/status"}]')
    err = error_of(host, None)
    assert err["code"] == ErrorType.INVALID_REQUEST.code
    assert "batch" in str(err["message"])
    still_serving(host)


def test_an_envelope_without_jsonrpc_2_is_an_invalid_request_answered_by_id(
    host: HostClient,
) -> None:
    host.send_body(b'{"id":"abc","method":"supervisor/status"}')
    assert error_of(host, "abc")["code"] == ErrorType.INVALID_REQUEST.code
    still_serving(host)


def test_an_unknown_method_gets_method_not_found(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request("no/such", {})
    assert err.value.kind is ErrorType.METHOD_NOT_FOUND
    still_serving(host)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "params.message"),
        ({"message": 5}, "params.message"),
        ({"message": "x", "sesionId": "typo"}, "params.sesionId"),
        (
            {"message": "x", "conversationHistory": [{"role": "user"}, 3]},
            "params.conversationHistory[1]",
        ),
    ],
)
def test_invalid_params_are_refused_naming_the_field(
    host: HostClient, params: dict[str, object], field: str
) -> None:
    with pytest.raises(RpcError) as err:
        host.request("run/start", params)
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == field
    still_serving(host)


REQUESTS = [
    name
    for name, m in HOST_METHODS.items()
    if not m.notification and name not in ("initialize", "shutdown")
]


def test_every_request_refuses_an_unknown_field_by_name_and_the_server_goes_on(
    host: HostClient,
) -> None:
    for method in REQUESTS:
        with pytest.raises(RpcError) as err:
            host.request(method, {"bogus": 1})
        assert err.value.kind is ErrorType.INVALID_PARAMS, method
        # The first problem found is named: a missing required field, or the stray one.
        assert str(err.value.data["field"]).startswith("params."), method
    still_serving(host)


def test_params_that_are_not_an_object_are_invalid_params(host: HostClient) -> None:
    host.send_body(b'{"jsonrpc":"2.0","id":7,"method":"run/start","params":["hi"]}')
    assert error_of(host, 7)["code"] == ErrorType.INVALID_PARAMS.code
    still_serving(host)


def test_junk_between_frames_is_skipped_and_the_next_frame_is_served(host: HostClient) -> None:
    host.write_raw(b"garbage\r\nmore garbage\n")
    still_serving(host)
    host.write_raw(b"Content-Length: abc\r\n\r\n")
    still_serving(host)
    host.wait_stderr(lambda line: "framing" in line)


def test_a_frame_over_the_body_limit_gets_message_too_large_and_is_skipped(
    start_host: StartHost,
) -> None:
    host = start_host("--max-body-bytes", "4096")
    host.initialize()
    big = json.dumps(
        {"jsonrpc": "2.0", "id": 99, "method": "run/start", "params": {"message": "x" * 8000}}
    )
    host.send_body(big.encode())
    err = error_of(host, None)
    assert err["code"] == ErrorType.MESSAGE_TOO_LARGE.code
    assert err["data"] == {"type": "message_too_large"}
    still_serving(host)


def test_a_second_request_reusing_a_pending_id_is_refused_and_the_first_still_answered(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    # run/start on a cold worker stays pending while the worker process starts.
    host.send_request("run/start", {"message": "hi"}, msg_id="dup")
    host.send_request("supervisor/status", {}, msg_id="dup")
    refused = error_of(host, None)
    assert refused["code"] == ErrorType.INVALID_REQUEST.code
    first = host.response("dup")
    assert first.error is None and first.result["runId"]
    host.wait_run_completed(first.result["runId"])


def test_repeated_garbage_makes_the_supervisor_give_up_with_a_clear_reason(
    start_host: StartHost,
) -> None:
    host = start_host()
    host.initialize()
    host.write_raw(b"Content-Length: x\r\n\r\n" * 40)
    assert host.proc.wait(15) == 1
    host.wait_stderr(lambda line: "too much invalid input" in line)


@pytest.mark.parametrize(
    "bad",
    [b"Content-Length: 5\n\nhello", b"Content-Length: 5\r\nX: y\r\n", b"junk content-type: x"],
)
def test_a_malformed_header_block_never_swallows_the_request_after_it(
    host: HostClient, bad: bytes
) -> None:
    msg_id = "after"
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "supervisor/status"}).encode()
    host.write_raw(bad + encode_frame(body))
    assert host.response(msg_id).result["pid"] == host.proc.pid


def test_an_absurd_content_length_does_not_make_the_server_deaf(host: HostClient) -> None:
    host.write_raw(b"Content-Length: 99999999999999999999\r\n\r\n")
    still_serving(host)


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("session/listStored", {"offset": 2**63}, "params.offset"),
        ("session/undo", {"sessionId": "s", "turns": 2**63}, "params.turns"),
        ("run/start", {"message": "hi", "sessionId": "\ud800"}, "params.sessionId"),
        # Names: empty, too long or holding a control character.
        ("run/start", {"message": "hi", "sessionId": "a\x00b"}, "params.sessionId"),
        ("run/start", {"message": "hi", "workerKey": "a\nhermes-stdio: fake"}, "params.workerKey"),
        ("session/estimateContext", {"sessionId": "\x00"}, "params.sessionId"),
        ("session/status", {"sessionId": ""}, "params.sessionId"),
        ("session/fork", {"sessionId": "s", "newSessionId": "x" * 257}, "params.newSessionId"),
        ("session/listStored", {"workerKey": "k" * 129}, "params.workerKey"),
        ("session/delete", {"sessionId": ""}, "params.sessionId"),
        ("session/history", {"sessionId": "s", "before": 2**63}, "params.before"),
        ("plugin/setEnabled", {"name": "a\x00b", "enabled": True}, "params.name"),
        ("plugin/setEnabled", {"name": "p" * 257, "enabled": True}, "params.name"),
        ("model/oneShot", {"input": "hi", "sessionId": "\x00"}, "params.sessionId"),
        ("model/oneShot", {"commitMessage": {"diff": 3}}, "params.commitMessage.diff"),
        ("project/facts", {"workspace": 7}, "params.workspace"),
    ],
)
def test_an_out_of_range_integer_a_lone_surrogate_or_a_bad_name_is_invalid_params_naming_it(
    host: HostClient, method: str, params: dict[str, object], field: str
) -> None:
    with pytest.raises(RpcError) as err:
        host.request(method, params)
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == field
    # Refused before any worker was asked: none was started for it.
    assert host.request("supervisor/status")["workers"] == []
    still_serving(host)


def test_an_id_holding_a_lone_surrogate_is_echoed_exactly(host: HostClient) -> None:
    host.send_body(b'{"jsonrpc":"2.0","id":"\\ud800","method":"supervisor/status"}')
    assert host.response("\ud800").result["pid"] == host.proc.pid
