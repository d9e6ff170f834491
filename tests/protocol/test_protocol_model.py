"""protocol.model: decode/encode between frozen records and camelCase wire JSON."""

from __future__ import annotations

import re
import typing
from typing import Annotated, Any, Literal

import pytest

from hermes_stdio.protocol import HOST_METHODS, camel, decode, encode
from hermes_stdio.protocol import stored as st
from hermes_stdio.protocol import types as t
from hermes_stdio.protocol import workers as pw
from hermes_stdio.protocol.events import (
    GoalEvaluatedEvent,
    RunEvent,
    StatusEvent,
    ThinkingEvent,
    ToolGeneratingEvent,
)
from hermes_stdio.protocol.model import Name, fields_of, schema_of
from hermes_stdio.protocol.record import Record
from hermes_stdio.wire import ErrorType, RpcError


def decode_error(tp: type, value: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        decode(tp, value)
    err = info.value
    assert err.kind is ErrorType.INVALID_PARAMS
    assert err.to_wire()["code"] == ErrorType.INVALID_PARAMS.code
    assert err.to_wire()["data"]["type"] == ErrorType.INVALID_PARAMS.type
    return err


def field_of(err: RpcError) -> str:
    field = err.data["field"]
    assert field in err.message  # the message names the same path
    return field


class Inner(Record):
    flag: bool
    count: int = 0


class Sample(Record):
    some_name: str
    kind: Literal["a", "b"]
    number: float
    maybe: int | None = None
    inner: Inner | None = None
    items: list[Inner] | None = None
    table: dict[str, int] | None = None
    either: int | str | None = None
    blob: Any = None


def test_camel_maps_snake_case_to_camel_case():
    assert camel("session_id") == "sessionId"
    assert camel("conversation_history") == "conversationHistory"
    assert camel("max_body_bytes") == "maxBodyBytes"
    assert camel("id") == "id"


def test_decode_maps_camel_case_wire_names_to_fields():
    p = decode(t.RunStartParams, {"message": "hi", "sessionId": "s1", "workerKey": "k"})
    assert p == t.RunStartParams(message="hi", session_id="s1", worker_key="k")


def test_snake_case_names_are_unknown_on_the_wire():
    err = decode_error(t.RunStartParams, {"message": "hi", "session_id": "s1"})
    assert field_of(err) == "params.session_id"


def test_an_unknown_field_is_rejected_naming_its_path():
    assert field_of(decode_error(t.RunTarget, {"runId": "r", "bogus": 1})) == "params.bogus"


def test_an_unknown_nested_field_is_rejected_naming_its_full_path():
    value = {"protocolVersion": 1, "clientInfo": {"name": "x", "extra": True}}
    assert field_of(decode_error(t.InitializeParams, value)) == "params.clientInfo.extra"


def test_a_missing_required_field_is_rejected_naming_it():
    assert field_of(decode_error(t.RunStartParams, {"sessionId": "s"})) == "params.message"


def test_a_nullable_field_without_a_default_is_still_required():
    value = {
        "profile": "p",
        "pid": None,
        "state": "ready",
        "restarts": 0,
        "startedAt": None,
        "lastUsedAt": 1,
        "sessions": 0,
        "runningRuns": 0,
    }
    assert field_of(decode_error(pw.WorkerInfo, value)) == "params.workerKey"
    assert decode(pw.WorkerInfo, {**value, "workerKey": None}).worker_key is None


def test_a_wrong_nested_type_names_the_list_index():
    value = {"message": "m", "conversationHistory": [{"role": "user"}, "not an object"]}
    err = decode_error(t.RunStartParams, value)
    assert field_of(err) == "params.conversationHistory[1]"


def test_a_wrong_type_inside_a_list_of_records_names_the_index_and_field():
    err = decode_error(Sample, {"someName": "x", "kind": "a", "number": 1, "items": [{"flag": 1}]})
    assert field_of(err) == "params.items[0].flag"


def test_a_wrong_type_inside_a_dict_names_the_key():
    err = decode_error(Sample, {"someName": "x", "kind": "a", "number": 1, "table": {"k": "v"}})
    assert field_of(err) == "params.table.k"


def test_params_that_are_not_an_object_are_rejected_at_the_root():
    assert field_of(decode_error(t.RunTarget, ["runId"])) == "params"


def test_a_literal_accepts_only_its_values():
    base = {"someName": "x", "number": 1}
    assert decode(Sample, {**base, "kind": "b"}).kind == "b"
    assert field_of(decode_error(Sample, {**base, "kind": "c"})) == "params.kind"
    assert field_of(decode_error(Sample, {**base, "kind": None})) == "params.kind"


def test_a_literal_of_integers_does_not_accept_booleans():
    class Version(Record):
        v: Literal[1, 0]

    assert decode(Version, {"v": 1}).v == 1
    assert field_of(decode_error(Version, {"v": True})) == "params.v"
    assert field_of(decode_error(Version, {"v": False})) == "params.v"


def test_an_int_field_rejects_booleans_and_floats():
    assert decode(t.InitializeParams, {"protocolVersion": 1}).protocol_version == 1
    for bad in (True, False, 1.0, 1.5, "1", None):
        err = decode_error(t.InitializeParams, {"protocolVersion": bad})
        assert field_of(err) == "params.protocolVersion", bad


def test_a_bool_field_rejects_integers():
    assert decode(t.SessionStatusParams, {"sessionId": "s", "ifLoaded": True}).if_loaded is True
    for bad in (1, 0, "true", None):
        err = decode_error(t.SessionStatusParams, {"sessionId": "s", "ifLoaded": bad})
        assert field_of(err) == "params.ifLoaded", bad


def test_a_float_field_accepts_integers_as_floats_but_not_booleans():
    value = decode(Sample, {"someName": "x", "kind": "a", "number": 3})
    assert value.number == 3.0
    assert isinstance(value.number, float)
    err = decode_error(Sample, {"someName": "x", "kind": "a", "number": True})
    assert field_of(err) == "params.number"


def test_an_optional_field_accepts_null_and_its_type_but_nothing_else():
    base = {"message": "m"}
    assert decode(t.RunStartParams, {**base, "sessionId": None}).session_id is None
    assert decode(t.RunStartParams, {**base, "sessionId": "s"}).session_id == "s"
    assert field_of(decode_error(t.RunStartParams, {**base, "sessionId": 5})) == "params.sessionId"


def test_absent_optional_fields_take_their_defaults():
    p = decode(t.SessionStatusParams, {"sessionId": "s"})
    assert p == t.SessionStatusParams("s", None, None, False)


def test_a_union_of_int_and_str_accepts_both_and_rejects_others():
    assert decode(t.CancelParams, {"id": 3}).id == 3
    assert decode(t.CancelParams, {"id": "x"}).id == "x"
    for bad in (True, 1.5, None, [1], {}):
        assert field_of(decode_error(t.CancelParams, {"id": bad})) == "params.id", bad


def test_any_accepts_any_json_value():
    for blob in (None, 1, "s", [1, {"a": None}], {"x": [True]}):
        assert (
            decode(Sample, {"someName": "x", "kind": "a", "number": 0, "blob": blob}).blob == blob
        )


def test_empty_params_accept_an_empty_object_and_reject_fields():
    assert decode(t.EmptyParams, {}) == t.EmptyParams()
    assert field_of(decode_error(t.EmptyParams, {"x": 1})) == "params.x"


def test_a_custom_root_path_prefixes_field_names():
    with pytest.raises(RpcError) as info:
        decode(t.RunTarget, {}, "result")
    assert info.value.data["field"] == "result.runId"


def test_encode_writes_every_field_in_camel_case_with_none_as_null():
    info = t.SessionInfo(
        "s1", True, False, None, "default", None, 2, 123, "high", "/w", ["web"], True, True
    )
    assert encode(info) == {
        "sessionId": "s1",
        "loaded": True,
        "running": False,
        "runId": None,
        "profile": "default",
        "model": None,
        "messageCount": 2,
        "lastUsedAt": 123,
        "reasoningEffort": "high",
        "workspace": "/w",
        "disabledToolsets": ["web"],
        "autoApprove": True,
        "reviewEdits": True,
    }


def test_encode_recurses_through_lists_and_dicts_of_records():
    result = t.RunResultResult("r", "s", "complete", t.RunOutput("done", 2, 1), None)
    assert encode({"list": [result], "tuple": (1, 2)}) == {
        "list": [
            {
                "runId": "r",
                "sessionId": "s",
                "status": "complete",
                "result": {
                    "finalResponse": "done",
                    "messageCount": 2,
                    "apiCalls": 1,
                    "usage": None,
                },
                "error": None,
            }
        ],
        "tuple": [1, 2],
    }


def test_decode_of_an_encoded_record_gives_back_an_equal_record():
    options = t.InitializeOptions(prewarm_profiles=["work"])
    caps = t.ClientCapabilities(["run/delta"], None)
    params = t.InitializeParams(1, t.ClientInfo("editor", "2.0"), caps, options)
    assert decode(t.InitializeParams, encode(params)) == params
    note = t.RunCompletedNotification("r", "s", 4, "error", None, t.RunError("agent_error", "x"))
    assert decode(t.RunCompletedNotification, encode(note)) == note


# --- values of the right type that are still refused -----------------------

SAFE = 2**53 - 1
LONE_SURROGATES = ("\ud800", "\udfff", "ok\udc80tail", "\u00e9\ud83d")


@pytest.mark.parametrize("edge", [SAFE, -SAFE, 0])
def test_an_int_field_accepts_integers_up_to_the_json_safe_limit(edge: int):
    assert decode(st.SessionListStoredParams, {"offset": edge}).offset == edge
    assert decode(st.SessionUndoParams, {"sessionId": "s", "turns": edge}).turns == edge


@pytest.mark.parametrize("huge", [SAFE + 1, -SAFE - 1, 2**63, -(2**63), 10**30])
def test_an_int_field_refuses_integers_beyond_the_json_safe_limit_naming_the_field(huge: int):
    err = decode_error(st.SessionListStoredParams, {"offset": huge})
    assert field_of(err) == "params.offset"
    err = decode_error(st.SessionUndoParams, {"sessionId": "s", "turns": huge})
    assert field_of(err) == "params.turns"


@pytest.mark.parametrize("number", [1e30, -1e30, 5.0, 0.0, 2.0**63, 1.5])
def test_an_int_field_refuses_every_float_integral_or_huge_naming_the_field(number: float):
    err = decode_error(st.SessionListStoredParams, {"offset": number})
    assert field_of(err) == "params.offset"


def test_nested_and_optional_int_fields_refuse_integers_beyond_the_limit():
    base = {"someName": "x", "kind": "a", "number": 0}
    assert field_of(decode_error(Sample, {**base, "maybe": 2**63})) == "params.maybe"
    inner = {**base, "items": [{"flag": True}, {"flag": True, "count": 2**63}]}
    assert field_of(decode_error(Sample, inner)) == "params.items[1].count"
    assert field_of(decode_error(Sample, {**base, "table": {"k": -(2**63)}})) == "params.table.k"


def test_an_int_or_str_union_refuses_a_huge_integer_with_the_range_reason():
    err = decode_error(t.CancelParams, {"id": 2**63})
    assert field_of(err) == "params.id"
    assert "range" in err.message  # not "expected an integer or a string"


def test_a_float_field_refuses_an_integer_too_large_for_a_float():
    err = decode_error(Sample, {"someName": "x", "kind": "a", "number": 10**400})
    assert field_of(err) == "params.number"


@pytest.mark.parametrize("text", LONE_SURROGATES)
def test_a_string_field_refuses_a_lone_surrogate_naming_the_field(text: str):
    err = decode_error(t.SessionStatusParams, {"sessionId": text})
    assert field_of(err) == "params.sessionId"
    err = decode_error(t.RunStartParams, {"message": "hi", "sessionId": text})
    assert field_of(err) == "params.sessionId"


def test_a_string_field_keeps_valid_non_ascii_text_unchanged():
    text = "caf\u00e9 \u20ac \U0001f600 \u4e2d"
    assert decode(t.SessionStatusParams, {"sessionId": text}).session_id == text


def test_an_int_or_str_union_refuses_a_lone_surrogate_string():
    assert field_of(decode_error(t.CancelParams, {"id": "\ud800"})) == "params.id"


def test_lone_surrogates_inside_lists_dicts_and_any_values_are_refused_by_path():
    base = {"someName": "x", "kind": "a", "number": 0}
    assert field_of(decode_error(Sample, {**base, "table": {"\ud800": 1}})) == "params.table"
    blob = {"a": [1, {"b": "ok"}, {"c": "\udfff"}]}
    assert field_of(decode_error(Sample, {**base, "blob": blob})) == "params.blob.a[2].c"
    assert field_of(decode_error(Sample, {**base, "blob": {"\ud800": 0}})) == "params.blob"
    assert field_of(decode_error(Sample, {**base, "blob": "\ud800"})) == "params.blob"


def test_any_values_keep_integers_of_any_size():
    base = {"someName": "x", "kind": "a", "number": 0}
    assert decode(Sample, {**base, "blob": [2**63]}).blob == [2**63]


def test_a_deeply_nested_any_value_is_checked_without_recursion_errors():
    deep: Any = "\ud800"
    for _ in range(5000):
        deep = [deep]
    err = decode_error(Sample, {"someName": "x", "kind": "a", "number": 0, "blob": deep})
    assert field_of(err).startswith("params.blob[0][0]")


class Named(Record):
    key: Annotated[str, Name(8)]
    maybe: Annotated[str, Name(8)] | None = None


@pytest.mark.parametrize("name", ["a", "-rf", "--p=w", "é😀 x/..", "x" * 8])
def test_a_name_field_accepts_any_printable_text_up_to_its_length(name: str):
    assert decode(Named, {"key": name, "maybe": name}) == Named(name, name)


@pytest.mark.parametrize(
    "name", ["", "x" * 9, "a\x00b", "a\nb", "\t", "a\x7f", "a\x85", "\x9f", "\ud800"]
)
def test_a_name_field_refuses_empty_long_or_control_text_naming_the_field(name: str):
    assert field_of(decode_error(Named, {"key": name})) == "params.key"
    assert field_of(decode_error(Named, {"key": "ok", "maybe": name})) == "params.maybe"


def test_a_name_fields_schema_states_the_rule_that_decoding_applies():
    defs: dict[str, Any] = {}
    schema_of(Named, defs)
    key = defs["Named"]["properties"]["key"]
    assert key == {
        "type": "string",
        "minLength": 1,
        "maxLength": 8,
        "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
    }
    assert defs["Named"]["properties"]["maybe"]["anyOf"] == [key, {"type": "null"}]
    # The pattern, read as a regular expression, refuses what decoding refuses.
    for text in ["ok", "-rf", "a\x00", "a\n", "\x85", "é"]:
        refused = text and re.fullmatch(key["pattern"], text) is None
        assert refused == (text in {"a\x00", "a\n", "\x85"}), text


def _names_in(tp: Any) -> list[Name]:
    """The ``Name`` marks in a field type, through ``X | None``."""
    if typing.get_origin(tp) is Annotated:
        return [m for m in typing.get_args(tp)[1:] if isinstance(m, Name)]
    return [n for arg in typing.get_args(tp) for n in _names_in(arg)]


def test_every_params_field_naming_a_session_or_worker_key_is_a_checked_name():
    limits = {"sessionId": 256, "newSessionId": 256, "workerKey": 128}
    for method in HOST_METHODS.values():
        for field in fields_of(method.params):
            if field.wire in limits:
                assert _names_in(field.tp) == [Name(limits[field.wire])], (method.name, field.wire)


def test_a_keyword_only_field_is_skipped_by_positional_arguments() -> None:
    event = StatusEvent("warn", "retrying")
    assert (event.type, event.kind, event.message) == ("status", "warn", "retrying")
    with pytest.raises(TypeError):
        StatusEvent("status", "warn", "retrying")


def test_a_union_tagged_by_type_decodes_by_the_tag_and_names_a_wrong_one() -> None:
    assert decode(RunEvent, {"type": "thinking", "text": "hm"}) == ThinkingEvent(text="hm")
    assert decode(RunEvent, {"type": "tool.generating", "name": "x"}) == ToolGeneratingEvent(
        name="x"
    )
    with pytest.raises(RpcError) as unknown:
        decode(RunEvent, {"type": "nope"}, "event")
    assert unknown.value.data == {"field": "event.type"}
    with pytest.raises(RpcError) as missing:
        decode(RunEvent, {"type": "thinking"}, "event")
    assert missing.value.data == {"field": "event.text"}


def test_the_goal_evaluated_event_ends_with_every_goal_info_field_typed_as_there() -> None:
    goal_info = [(f.wire, f.tp) for f in fields_of(t.GoalInfo)]
    assert [(f.wire, f.tp) for f in fields_of(GoalEvaluatedEvent)][-len(goal_info) :] == goal_info
