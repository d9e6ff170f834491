"""JSON-RPC 2.0 messages, sans I/O.

Contract:
- ``parse_message(body)`` turns one frame body into exactly one of
  ``Request``, ``Notification``, ``Response`` or ``Invalid``; it never raises.
  ``Invalid`` carries the error to send back (``id`` is null where the
  request's id could not be read): -32700 for bad UTF-8/JSON, -32600 for a bad
  envelope or a batch (batches are not supported), -32602 for params that are
  not an object.
- JSON text is ``codec``'s (orjson where loaded, else the standard library,
  with the same values either way).
- ``encode_*`` produce compact UTF-8 JSON bodies (no framing); they write a
  non-finite float as null and raise on other values JSON cannot carry
  (objects), which ``to_jsonable`` turns into strings first. A string
  holding a lone surrogate (not encodable as UTF-8) is handled by what it is:
  an id round-trips exactly (as a ``\\uXXXX`` escape, the request's whole
  body then ASCII), and so does a notification sent ``exact``; content
  (params of other notifications, results, errors) gets U+FFFD in its place,
  so what a peer did not send itself is always valid Unicode (strict JSON
  parsers refuse lone surrogates).
  ``valid_utf8(text)`` is that replacement for a body built by hand.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from . import codec
from .errors import ErrorType, RpcError

RequestId = int | str
JsonObject = dict[str, Any]


# NamedTuples rather than dataclasses: importing dataclasses costs start-up time.
class Request(NamedTuple):
    id: RequestId
    method: str
    params: JsonObject


class Notification(NamedTuple):
    method: str
    params: JsonObject


class Response(NamedTuple):
    id: RequestId | None
    result: Any = None
    error: JsonObject | None = None


class Invalid(NamedTuple):
    """A message that cannot be handled; ``error`` is what to answer (if ``id`` allows)."""

    id: RequestId | None
    error: RpcError
    is_notification: bool = False


Message = Request | Notification | Response | Invalid


def _valid_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def parse_message(body: bytes) -> Message:
    try:
        obj = codec.loads(body)
    except UnicodeDecodeError as exc:
        return Invalid(
            None, RpcError(ErrorType.PARSE_ERROR, f"body is not valid UTF-8: {exc.reason}")
        )
    except RecursionError:
        return Invalid(None, RpcError(ErrorType.PARSE_ERROR, "body is nested too deeply"))
    except ValueError as exc:
        return Invalid(None, RpcError(ErrorType.PARSE_ERROR, f"body is not valid JSON: {exc}"))
    return classify(obj)


def classify(obj: Any) -> Message:
    if isinstance(obj, list):
        return Invalid(
            None, RpcError(ErrorType.INVALID_REQUEST, "batch messages are not supported")
        )
    if not isinstance(obj, dict):
        return Invalid(None, RpcError(ErrorType.INVALID_REQUEST, "a message must be a JSON object"))
    raw_id = obj.get("id")
    msg_id: RequestId | None = raw_id if _valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        return Invalid(msg_id, RpcError(ErrorType.INVALID_REQUEST, 'jsonrpc must be "2.0"'))
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str) or not method:
            return Invalid(
                msg_id, RpcError(ErrorType.INVALID_REQUEST, "method must be a non-empty string")
            )
        is_notification = "id" not in obj
        if not is_notification and msg_id is None:
            return Invalid(
                None, RpcError(ErrorType.INVALID_REQUEST, "id must be an integer or a string")
            )
        params = obj.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            err = RpcError(ErrorType.INVALID_PARAMS, "params must be an object", field="params")
            return Invalid(msg_id, err, is_notification)
        if is_notification:
            return Notification(method, params)
        assert msg_id is not None
        return Request(msg_id, method, params)
    if "result" in obj or "error" in obj:
        error = obj.get("error")
        if ("result" in obj) == ("error" in obj) or (
            error is not None and not isinstance(error, dict)
        ):
            return Invalid(
                None, RpcError(ErrorType.INVALID_REQUEST, "a response has result xor error")
            )
        if raw_id is not None and msg_id is None:
            return Invalid(
                None, RpcError(ErrorType.INVALID_REQUEST, "id must be an integer or a string")
            )
        return Response(msg_id, obj.get("result"), error)
    return Invalid(
        msg_id, RpcError(ErrorType.INVALID_REQUEST, "a message needs a method, result or error")
    )


def _encode(message: JsonObject) -> bytes:
    fast = codec.dumps_fast(message)
    if fast is not None:
        return fast
    text = codec.dumps_text(message)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape it as \ud800, never replace it
        return codec.dumps_text(message, ascii=True).encode("ascii")


def valid_utf8(text: str) -> bytes:
    """``text`` as UTF-8, each lone surrogate replaced by U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A pair split into two code points rejoins; a lone one becomes U+FFFD.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()


def encode_request(msg_id: RequestId, method: str, params: Any) -> bytes:
    return _encode({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def encode_notification(method: str, params: Any, *, exact: bool = False) -> bytes:
    """``exact``: escape lone surrogates instead, for one that echoes an id
    (``$/cancelRequest``)."""
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if exact:
        return _encode(message)
    return codec.dumps_fast(message) or valid_utf8(codec.dumps_text(message))


def _encode_reply(msg_id: RequestId | None, key: str, value: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": msg_id, key: value}
    fast = codec.dumps_fast(message)
    if fast is not None:
        return fast
    try:
        return codec.dumps_text(message).encode("utf-8")
    except UnicodeEncodeError:  # the id is echoed exactly; the content is made valid
        head = '{"jsonrpc":"2.0","id":' + codec.dumps_text(msg_id, ascii=True) + ',"' + key + '":'
        return head.encode("ascii") + valid_utf8(codec.dumps_text(value)) + b"}"


def encode_result(msg_id: RequestId | None, result: Any) -> bytes:
    return _encode_reply(msg_id, "result", result)


def encode_error(msg_id: RequestId | None, error: JsonObject) -> bytes:
    return _encode_reply(msg_id, "error", error)


def to_jsonable(value: Any) -> Any:
    """``value`` with what strict JSON cannot carry made into strings: non-finite
    floats (``"nan"``, ``"inf"``), keys that are not strings, and other objects."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return str(value)
