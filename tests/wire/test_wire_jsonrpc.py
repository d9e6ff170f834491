"""parse_message / classify / encode_*: JSON-RPC 2.0 envelopes, sans I/O."""

from __future__ import annotations

import json

import pytest

from hermes_stdio.wire import (
    ErrorType,
    Invalid,
    Notification,
    Request,
    Response,
    classify,
    encode_error,
    encode_notification,
    encode_request,
    encode_result,
    parse_message,
    to_jsonable,
    valid_utf8,
)

pytestmark = pytest.mark.usefixtures("codec_kind")


def parse(obj: object) -> object:
    return parse_message(json.dumps(obj).encode())


def assert_invalid(msg: object, kind: ErrorType, msg_id: object = None) -> Invalid:
    assert isinstance(msg, Invalid), msg
    assert msg.error.kind is kind
    assert msg.error.to_wire()["code"] == kind.code
    assert msg.error.to_wire()["data"]["type"] == kind.type
    assert msg.id == msg_id
    return msg


# --- well-formed messages ----------------------------------------------------


def test_a_request_with_an_integer_id_is_a_request():
    msg = parse({"jsonrpc": "2.0", "id": 7, "method": "run/start", "params": {"message": "hi"}})
    assert msg == Request(7, "run/start", {"message": "hi"})


def test_a_request_with_a_string_id_is_a_request():
    assert parse({"jsonrpc": "2.0", "id": "a", "method": "m"}) == Request("a", "m", {})


def test_absent_or_null_params_become_an_empty_object():
    assert parse({"jsonrpc": "2.0", "id": 1, "method": "m"}) == Request(1, "m", {})
    assert parse({"jsonrpc": "2.0", "id": 1, "method": "m", "params": None}) == Request(1, "m", {})
    assert parse({"jsonrpc": "2.0", "method": "n", "params": None}) == Notification("n", {})


def test_a_message_without_an_id_is_a_notification():
    assert parse({"jsonrpc": "2.0", "method": "exit"}) == Notification("exit", {})


def test_a_result_response_is_a_response():
    assert parse({"jsonrpc": "2.0", "id": 3, "result": {"ok": True}}) == Response(3, {"ok": True})


def test_a_null_result_is_still_a_result():
    assert parse({"jsonrpc": "2.0", "id": 3, "result": None}) == Response(3, None, None)


def test_an_error_response_with_a_null_id_is_a_response():
    error = {"code": -32700, "message": "bad"}
    assert parse({"jsonrpc": "2.0", "id": None, "error": error}) == Response(None, None, error)


def test_multibyte_utf8_in_a_body_is_decoded():
    body = '{"jsonrpc":"2.0","method":"n","params":{"t":"\u20ac\U0001f600"}}'.encode()
    assert parse_message(body) == Notification("n", {"t": "\u20ac\U0001f600"})


# --- parse errors -----------------------------------------------------------


@pytest.mark.parametrize("body", [b"\xff\xfe{}", b'{"jsonrpc":"2.0","id":1,"method":"\xc3"}'])
def test_a_body_that_is_not_utf8_is_a_parse_error_with_a_null_id(body: bytes):
    assert_invalid(parse_message(body), ErrorType.PARSE_ERROR, None)


@pytest.mark.parametrize("body", [b"", b"{", b'{"jsonrpc":"2.0",}', b"nope", b'{"id":1,'])
def test_a_body_that_is_not_json_is_a_parse_error_with_a_null_id(body: bytes):
    assert_invalid(parse_message(body), ErrorType.PARSE_ERROR, None)


def test_a_nan_literal_is_not_json():
    body = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":NaN}}'
    assert_invalid(parse_message(body), ErrorType.PARSE_ERROR, None)


def test_deeply_nested_json_does_not_raise():
    msg = parse_message(b"[" * 100_000 + b"]" * 100_000)
    assert isinstance(msg, Invalid)


# --- invalid envelopes -------------------------------------------------------


def test_a_batch_array_is_an_invalid_request():
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "m"}]
    assert_invalid(parse(batch), ErrorType.INVALID_REQUEST, None)
    assert_invalid(parse([]), ErrorType.INVALID_REQUEST, None)


@pytest.mark.parametrize("value", ["str", 1, None, True])
def test_a_json_value_that_is_not_an_object_is_an_invalid_request(value: object):
    assert_invalid(parse(value), ErrorType.INVALID_REQUEST, None)


def test_a_missing_jsonrpc_member_is_an_invalid_request_keeping_the_id():
    assert_invalid(parse({"id": 4, "method": "m"}), ErrorType.INVALID_REQUEST, 4)


@pytest.mark.parametrize("version", ["1.0", 2.0, 2, None])
def test_a_wrong_jsonrpc_version_is_an_invalid_request(version: object):
    assert_invalid(
        parse({"jsonrpc": version, "id": "x", "method": "m"}), ErrorType.INVALID_REQUEST, "x"
    )


@pytest.mark.parametrize("bad_id", [True, False, 1.5, 1.0, {"a": 1}, [1], None])
def test_a_request_with_an_id_that_is_not_an_integer_or_string_is_invalid(bad_id: object):
    msg = parse({"jsonrpc": "2.0", "id": bad_id, "method": "m"})
    assert_invalid(msg, ErrorType.INVALID_REQUEST, None)


@pytest.mark.parametrize("method", ["", 5, None, ["m"]])
def test_a_method_that_is_not_a_non_empty_string_is_invalid(method: object):
    msg = parse({"jsonrpc": "2.0", "id": 9, "method": method})
    assert_invalid(msg, ErrorType.INVALID_REQUEST, 9)


@pytest.mark.parametrize("params", [[1, 2], "s", 3, True])
def test_request_params_that_are_not_an_object_are_invalid_params_keeping_the_id(params: object):
    msg = assert_invalid(
        parse({"jsonrpc": "2.0", "id": 2, "method": "m", "params": params}),
        ErrorType.INVALID_PARAMS,
        2,
    )
    assert not msg.is_notification
    assert msg.error.data == {"field": "params"}


def test_notification_params_that_are_not_an_object_are_invalid_and_marked_notification():
    msg = parse({"jsonrpc": "2.0", "method": "n", "params": [1]})
    assert assert_invalid(msg, ErrorType.INVALID_PARAMS, None).is_notification


def test_a_response_with_both_result_and_error_is_invalid():
    msg = parse({"jsonrpc": "2.0", "id": 1, "result": 1, "error": {"code": 1, "message": "x"}})
    assert_invalid(msg, ErrorType.INVALID_REQUEST, None)


def test_a_response_with_neither_result_nor_error_is_invalid():
    assert_invalid(parse({"jsonrpc": "2.0", "id": 1}), ErrorType.INVALID_REQUEST, 1)


@pytest.mark.parametrize("error", ["boom", 5, [1]])
def test_a_response_whose_error_is_not_an_object_is_invalid(error: object):
    assert_invalid(parse({"jsonrpc": "2.0", "id": 1, "error": error}), ErrorType.INVALID_REQUEST)


@pytest.mark.parametrize("bad_id", [True, 1.5, {"a": 1}])
def test_a_response_with_a_bad_id_type_is_invalid(bad_id: object):
    msg = parse({"jsonrpc": "2.0", "id": bad_id, "result": 1})
    assert_invalid(msg, ErrorType.INVALID_REQUEST, None)


def test_classify_takes_already_decoded_objects():
    assert classify({"jsonrpc": "2.0", "id": 1, "method": "m"}) == Request(1, "m", {})
    assert_invalid(classify([]), ErrorType.INVALID_REQUEST)


# --- encoding ---------------------------------------------------------------


def test_encode_request_produces_exact_compact_bytes():
    assert (
        encode_request(1, "run/start", {"message": "hi"})
        == b'{"jsonrpc":"2.0","id":1,"method":"run/start","params":{"message":"hi"}}'
    )
    assert encode_request("a", "m", {}) == b'{"jsonrpc":"2.0","id":"a","method":"m","params":{}}'


def test_encode_notification_produces_exact_compact_bytes():
    assert (
        encode_notification("run/delta", {"text": "\u20ac"})
        == '{"jsonrpc":"2.0","method":"run/delta","params":{"text":"\u20ac"}}'.encode()
    )


def test_encode_result_produces_exact_compact_bytes():
    assert encode_result(5, None) == b'{"jsonrpc":"2.0","id":5,"result":null}'
    assert encode_result("x", [1, True]) == b'{"jsonrpc":"2.0","id":"x","result":[1,true]}'


def test_encode_error_produces_exact_compact_bytes():
    error = {"code": -32601, "message": "No such method.", "data": {"type": "method_not_found"}}
    assert encode_error(None, error) == (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"No such method.",'
        b'"data":{"type":"method_not_found"}}}'
    )


def test_encoders_write_non_finite_floats_as_null_as_json_stringify_does():
    assert encode_result(1, float("nan")) == b'{"jsonrpc":"2.0","id":1,"result":null}'
    assert encode_notification("m", {"x": [float("inf")], "s": "\ud800"}) == (
        '{"jsonrpc":"2.0","method":"m","params":{"x":[null],"s":"\ufffd"}}'.encode()
    )


def test_encoders_refuse_objects_json_has_no_form_for():
    with pytest.raises(TypeError):
        encode_result(1, object())


def test_encoded_messages_parse_back_to_the_same_message():
    assert parse_message(encode_request(3, "m", {"a": [1]})) == Request(3, "m", {"a": [1]})
    assert parse_message(encode_notification("n", {"b": "\u00e9"})) == Notification(
        "n", {"b": "\u00e9"}
    )
    assert parse_message(encode_result(3, {"r": 1})) == Response(3, {"r": 1})
    err = {"code": -32000, "message": "x"}
    assert parse_message(encode_error(3, err)) == Response(3, None, err)


def test_to_jsonable_makes_what_strict_json_cannot_carry_into_strings() -> None:
    value = {1: [float("nan"), float("inf"), -float("inf"), 1.5, (True, None)], "o": object}
    out = to_jsonable(value)
    assert out == {"1": ["nan", "inf", "-inf", 1.5, [True, None]], "o": str(object)}
    assert parse_message(encode_notification("m", out)) == Notification("m", out)


# --- lone surrogates round-trip instead of turning into "?" -----------------


@pytest.mark.parametrize("lone", ["\ud800", "\udfff", "a\udc80b"])
def test_a_request_id_with_a_lone_surrogate_is_kept_exactly(lone: str):
    body = b'{"jsonrpc":"2.0","id":' + json.dumps(lone).encode() + b',"method":"m"}'
    assert parse_message(body) == Request(lone, "m", {})


@pytest.mark.parametrize("lone", ["\ud800", "\udfff", "a\udc80b\u00e9"])
def test_a_response_id_with_a_lone_surrogate_is_echoed_escaped_not_replaced(lone: str):
    for body in (encode_result(lone, None), encode_error(lone, {"code": 1, "message": "x"})):
        body.decode("utf-8")  # still valid UTF-8 on the wire
        assert b"?" not in body
        assert json.loads(body)["id"] == lone


def test_two_ids_differing_only_in_lone_surrogates_stay_distinct_when_encoded():
    assert encode_result("\ud800", 1) != encode_result("\udfff", 1)


def test_requests_escape_a_lone_surrogate_as_a_json_unicode_escape():
    assert encode_request("\udfff", "m", {}) == (
        b'{"jsonrpc":"2.0","id":"\\udfff","method":"m","params":{}}'
    )


def test_a_notification_carries_the_replacement_character_for_a_lone_surrogate():
    assert encode_notification("m", {"t": "a\ud800b", "u": "\u00e9"}) == (
        '{"jsonrpc":"2.0","method":"m","params":{"t":"a\ufffdb","u":"\u00e9"}}'.encode()
    )


def test_a_response_echoes_its_id_exactly_and_makes_its_content_valid():
    body = encode_result("\ud800", {"text": "a\udc00b"})
    assert body == b'{"jsonrpc":"2.0","id":"\\ud800","result":{"text":"a\xef\xbf\xbdb"}}'
    assert json.loads(encode_error(7, {"code": 1, "message": "\ud800"}))["error"]["message"] == (
        "\ufffd"
    )


def test_an_exact_notification_escapes_a_lone_surrogate_like_a_request():
    assert encode_notification("$/cancelRequest", {"id": "\ud800"}, exact=True) == (
        b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"\\ud800"}}'
    )


def test_valid_utf8_rejoins_a_pair_split_in_two_and_replaces_only_lone_halves():
    assert valid_utf8("\ud83d\ude00") == "\U0001f600".encode()
    assert valid_utf8("x\ude00\ud83d") == "x\ufffd\ufffd".encode()
    assert valid_utf8("plain é") == "plain é".encode()


def test_valid_non_ascii_text_is_still_sent_as_raw_utf8():
    assert (
        encode_result(1, "\u00e9\U0001f600")
        == '{"jsonrpc":"2.0","id":1,"result":"\u00e9\U0001f600"}'.encode()
    )
