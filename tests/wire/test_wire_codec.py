"""codec: orjson, where loaded, gives the wire the same values as the standard library."""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import pytest

from hermes_stdio.wire import codec

pytestmark = pytest.mark.usefixtures("codec_kind")


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


REFERENCE = json.JSONDecoder(parse_constant=_refuse)

# Bodies where a fast JSON parser could read another value than json does.
EDGES = [
    b'{"a":1,"a":2}',
    b"18446744073709551615",
    b"18446744073709551616",
    b"-9223372036854775808",
    b"-9223372036854775809",
    b'{"id":123456789012345678901234567890}',
    b"123456789012345678901234567890.5",
    b"1e400",
    b"-1e400",
    b"5e-324",
    b"-0",
    b"-0.0",
    b"0.1",
    b"1E5",
    b'"\\ud800"',
    b'"\\udfff\\ud800"',
    b'"\\ud83d\\ude00"',
    b'"\\u0000\xc3\xa9\xe2\x80\xa8"',
    b'"\\/"',
    b" \t\r\n{}\n",
    b"[" * 250 + b"]" * 250,
]

NOT_JSON = [
    b"",
    b"{",
    b"NaN",
    b"[Infinity]",
    b"\xef\xbb\xbf{}",
    b'"\x01"',
    b'"\xed\xa0\x80"',
    b'"\xc0\xaf"',
    b"{} x",
    b'{"a":1,}',
    b"01",
    b"+1",
    b"\xff",
]


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1 is not 1.0 here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b) and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


@pytest.mark.parametrize("body", EDGES)
def test_loads_reads_the_value_the_standard_library_reads(body: bytes) -> None:
    assert _same(codec.loads(body), REFERENCE.decode(body.decode("utf-8")))


@pytest.mark.parametrize("body", NOT_JSON)
def test_loads_refuses_what_the_standard_library_refuses_with_its_error(body: bytes) -> None:
    with pytest.raises(ValueError) as ours:
        codec.loads(body)
    with pytest.raises(ValueError) as theirs:
        REFERENCE.decode(body.decode("utf-8"))
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_loads_of_nesting_too_deep_raises_recursion_error() -> None:
    with pytest.raises(RecursionError):
        codec.loads(b"[" * 100_000 + b"]" * 100_000)


def _dumps(value: Any) -> bytes:
    return codec.dumps_fast(value) or codec.dumps_text(value).encode("utf-8")


VALUES: list[Any] = [
    {"jsonrpc": "2.0", "id": 7, "result": {"a": [1, 2.5, None, True, "\u00e9\u2028"]}},
    {"z": 1, "a": 2},
    2**64,
    -(2**63) - 1,
    1e-7,
    1e16,
    -0.0,
    5e-324,
    {"k": (1, "t")},
    '</script>\\"\x00\x1f\x7f',
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_what_dumps_writes_reads_back_as_the_value(value: Any) -> None:
    expected = json.loads(json.dumps(value))
    assert _same(json.loads(_dumps(value)), expected)


def test_dumps_writes_compact_text_in_key_order() -> None:
    assert _dumps({"b": [1, {"c": None}], "a": "\u00e9"}) == '{"b":[1,{"c":null}],"a":"é"}'.encode()


def test_non_finite_floats_are_written_as_null() -> None:
    value = {"x": [float("nan"), float("inf"), -float("inf"), 1.5]}
    assert _dumps(value) == b'{"x":[null,null,null,1.5]}'
    assert codec.dumps_text(value, ascii=True) == '{"x":[null,null,null,1.5]}'


def test_the_fast_path_leaves_a_lone_surrogate_and_other_keys_to_the_standard_path() -> None:
    for value in ({"s": "\ud800"}, {1: "one"}, 2**64, object()):
        assert codec.dumps_fast(value) is None


def test_objects_json_has_no_form_for_are_refused() -> None:
    for value in (object(), {"x": b"bytes"}, {"x": {1, 2}}):
        assert codec.dumps_fast(value) is None
        with pytest.raises(TypeError):
            codec.dumps_text(value)


def test_a_circular_value_is_refused() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert codec.dumps_fast(loop) is None
    with pytest.raises(ValueError):
        codec.dumps_text(loop)


def test_the_fast_codec_is_used_only_once_loaded(codec_kind: str) -> None:
    assert codec.fast_loaded() is (codec_kind == "orjson")
    fast = codec.dumps_fast({"a": 1})
    assert fast == (b'{"a":1}' if codec_kind == "orjson" else None)
    assert codec.dumps_fast(uuid.UUID(int=1)) == (
        b'"00000000-0000-0000-0000-000000000001"' if codec_kind == "orjson" else None
    )
