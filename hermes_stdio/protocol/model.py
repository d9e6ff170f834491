"""A tiny typed-record layer: the one place protocol types become wire JSON.

Contract:
- Protocol types are ``Record`` subclasses with snake_case fields; on the wire
  every field name is camelCase (``session_id`` <-> ``sessionId``).
- ``decode(cls, obj)`` validates a JSON value against ``cls`` and returns an
  instance. Unknown fields, missing required fields and wrong types raise
  ``RpcError(INVALID_PARAMS)`` whose message and ``data.field`` name the
  offending field by its wire path (``params.conversationHistory[2]``).
  Integers must lie within ``±MAX_SAFE_INTEGER`` (2**53 - 1, what a JavaScript
  host represents exactly); strings, anywhere in the value (``Any`` included),
  must be valid Unicode: a lone surrogate (``"\\ud800"``) is refused, not altered.
  A field typed ``Annotated[str, Name(n)]`` names something (a session, a
  worker): 1 to n characters, none a control character.
- ``encode(value)`` turns an instance (or a list/dict of them) into plain
  JSON values; every field is present, ``None`` as null.
- ``schema_of(tp, defs)`` gives the JSON Schema of a type, adding named
  records to ``defs``. Stdlib only: workers run under any Hermes Python.

Supported field types: str, int, float, bool, None, Any, list[T],
dict[str, T], Literal[...], unions (``X | None``, ``int | str``), records and
``Annotated[str, Name(n)]``. A union of records that each start with a one-value
``type`` Literal decodes by that tag.
"""

from __future__ import annotations

import functools
import re
import types
import typing
from typing import Any, NamedTuple, TypeVar

from ..wire.errors import ErrorType, RpcError
from .record import MISSING, Record, doc_field

__all__ = [
    "MAX_SAFE_INTEGER",
    "Name",
    "Record",
    "camel",
    "decode",
    "doc_field",
    "encode",
    "fields_of",
    "schema_of",
]

T = TypeVar("T")

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a params field accepts (and minus it the smallest)."""


class Name(NamedTuple):
    """Marks a string field that names something: 1 to ``max_length`` characters,
    none of them a control character (C0, DEL or C1). Such a name reaches command
    lines, environment variables and log lines, which a NUL or a newline breaks."""

    max_length: int

    def check(self, value: str, path: str) -> None:
        if not value or len(value) > self.max_length:
            raise _bad_value(path, f"must be 1-{self.max_length} characters")
        if _CONTROL.search(value):
            raise _bad_value(path, "must not hold a control character")

    def schema(self) -> dict[str, Any]:
        return {"minLength": 1, "maxLength": self.max_length, "pattern": _NO_CONTROL}


_CONTROLS = r"\u0000-\u001f\u007f-\u009f"  # in both Python's and ECMA-262's syntax
_CONTROL = re.compile(f"[{_CONTROLS}]")
_NO_CONTROL = f"^[^{_CONTROLS}]*$"


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class _Field(typing.NamedTuple):
    name: str
    wire: str
    tp: Any
    required: bool
    default: Any
    doc: str


_FIELDS: dict[type, tuple[_Field, ...]] = {}


def fields_of(cls: type[Record]) -> tuple[_Field, ...]:
    cached = _FIELDS.get(cls)
    if cached is not None:
        return cached
    hints = typing.get_type_hints(cls, include_extras=True)
    _FIELDS[cls] = fields = tuple(
        _Field(
            name,
            camel(name),
            hints[name],
            default is MISSING,
            None if default is MISSING else default,
            doc,
        )
        for name, default, doc in cls._spec
    )
    return fields


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Record)


def _fail(path: str, problem: str) -> RpcError:
    return RpcError(ErrorType.INVALID_PARAMS, f"{path}: {problem}", field=path)


class _BadValue(RpcError):
    """A value of the right JSON type that is still refused (out of range, not
    valid Unicode); a union reports it rather than "expected X or Y"."""


def _bad_value(path: str, problem: str) -> _BadValue:
    return _BadValue(ErrorType.INVALID_PARAMS, f"{path}: {problem}", field=path)


_LONE_SURROGATE = "is not valid Unicode (it holds a lone surrogate)"


def _check_text(value: str, path: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _bad_value(path, f"the string {_LONE_SURROGATE}") from None


def _check_any(value: Any, path: str) -> None:
    """Refuse lone surrogates anywhere in an opaque JSON value (iteratively: no
    recursion limit to hit on deep values)."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            _check_text(item, where)
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, dict):
            for k, v in item.items():
                if isinstance(k, str) and not k.isascii():
                    _check_key(k, where)
                stack.append((v, f"{where}.{k}"))


def _check_key(key: str, path: str) -> None:
    try:
        _check_text(key, path)
    except _BadValue:
        raise _bad_value(path, f"a key {_LONE_SURROGATE}") from None


_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def decode(tp: type[T], value: Any, path: str = "params") -> T:
    return typing.cast(T, _decode(tp, value, path))


def _decode(tp: Any, value: Any, path: str) -> Any:
    if tp is Any:
        _check_any(value, path)
        return value
    if _is_record(tp):
        if not isinstance(value, dict):
            raise _fail(path, f"expected an object, got {_json_type(value)}")
        known = fields_of(tp)
        wire_names = {f.wire for f in known}
        for key in value:
            if key not in wire_names:
                raise _fail(f"{path}.{key}", "unknown field")
        kwargs: dict[str, Any] = {}
        for f in known:
            if f.wire in value:
                kwargs[f.name] = _decode(f.tp, value[f.wire], f"{path}.{f.wire}")
            elif f.required:
                raise _fail(f"{path}.{f.wire}", "required field is missing")
        return tp(**kwargs)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *marks = typing.get_args(tp)
        value = _decode(base, value, path)
        for mark in marks:
            if isinstance(mark, Name):
                mark.check(value, path)
        return value
    if origin is typing.Literal:
        if value not in typing.get_args(tp) or isinstance(value, bool):
            allowed = ", ".join(repr(a) for a in typing.get_args(tp))
            raise _fail(path, f"expected one of {allowed}, got {value!r}")
        return value
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        non_null = [o for o in options if o is not type(None)]
        if value is None and len(non_null) < len(options):
            return None
        if len(non_null) == 1:  # Optional[X]: X's own error names the field precisely
            return _decode(non_null[0], value, path)
        tags = _tags(tuple(non_null))
        if tags and isinstance(value, dict):  # the "type" names the option
            chosen = tags.get(value.get("type"))
            if chosen is None:
                allowed = ", ".join(repr(tag) for tag in tags)
                raise _fail(f"{path}.type", f"expected one of {allowed}")
            return _decode(chosen, value, path)
        refused: _BadValue | None = None
        for option in non_null:
            try:
                return _decode(option, value, path)
            except _BadValue as exc:  # right type, wrong value: the precise reason
                refused = refused or exc
            except RpcError:
                pass
        if refused is not None:
            raise refused
        expected = " or ".join(_describe(o) for o in typing.get_args(tp))
        raise _fail(path, f"expected {expected}, got {_json_type(value)}")
    if origin is list:
        if not isinstance(value, list):
            raise _fail(path, f"expected an array, got {_json_type(value)}")
        (item,) = typing.get_args(tp)
        return [_decode(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(path, f"expected an object, got {_json_type(value)}")
        _, item = typing.get_args(tp)
        for k in value:
            _check_key(k, path)
        return {k: _decode(item, v, f"{path}.{k}") for k, v in value.items()}
    ok = (
        (tp is type(None) and value is None)
        or (tp is str and isinstance(value, str))
        or (tp is bool and isinstance(value, bool))
        or (tp is int and isinstance(value, int) and not isinstance(value, bool))
        or (tp is float and isinstance(value, int | float) and not isinstance(value, bool))
    )
    if not ok:
        raise _fail(path, f"expected {_describe(tp)}, got {_json_type(value)}")
    if tp is str:
        _check_text(value, path)
    elif tp is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise _bad_value(path, "the integer is out of range (at most 2**53 - 1 either way)")
    elif tp is float:
        try:
            return float(value)
        except OverflowError:  # an integer literal too large for a float
            raise _bad_value(path, "the number is out of range") from None
    return value


@functools.cache
def _tags(options: tuple[Any, ...]) -> dict[Any, Any]:
    """A union of records whose first field is ``type``, each a one-value Literal:
    each value and its record; empty for any other union."""
    tags = {}
    for option in options:
        head = fields_of(option)[0] if _is_record(option) and option._spec else None
        if head is None or head.wire != "type" or typing.get_origin(head.tp) is not typing.Literal:
            return {}
        values = typing.get_args(head.tp)
        if len(values) != 1:
            return {}
        tags[values[0]] = option
    return tags


def _describe(tp: Any) -> str:
    if _is_record(tp):
        return "an object"
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _describe(typing.get_args(tp)[0])
    if origin is list:
        return "an array"
    if origin is dict:
        return "an object"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    return _NAMES.get(tp, "a JSON value")


_SCALARS = (str, int, float, bool, type(None))


_WIRE_NAMES: dict[type, tuple[tuple[str, str], ...]] = {}


def _wire_names(cls: type[Record]) -> tuple[tuple[str, str], ...]:
    names = _WIRE_NAMES.get(cls)
    if names is None:
        names = _WIRE_NAMES[cls] = tuple((f.name, f.wire) for f in fields_of(cls))
    return names


def encode(value: Any) -> Any:
    # Scalars are checked inline rather than by a call per field: every response
    # the supervisor and workers send is encoded here.
    scalars = _SCALARS
    if type(value) in scalars:
        return value
    if isinstance(value, Record):
        attrs = value.__dict__
        out = {}
        for name, wire in _wire_names(type(value)):
            v = attrs[name]
            out[wire] = v if type(v) in scalars else encode(v)
        return out
    if isinstance(value, list | tuple):
        return [v if type(v) in scalars else encode(v) for v in value]
    if isinstance(value, dict):
        return {k: v if type(v) in scalars else encode(v) for k, v in value.items()}
    return value


def schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema (2020-12) for ``tp``; records go to ``defs`` and are referenced."""
    if tp is Any:
        return {}
    if _is_record(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            props = {}
            for f in fields_of(tp):
                prop = schema_of(f.tp, defs)
                if f.doc:
                    prop = {**prop, "description": f.doc}
                if not f.required and f.default is not None:
                    prop = {**prop, "default": f.default}
                props[f.wire] = prop
            record: dict[str, Any] = {
                "type": "object",
                "properties": props,
                "required": [f.wire for f in fields_of(tp) if f.required],
                "additionalProperties": False,
            }
            if tp.__doc__:
                record["description"] = " ".join(tp.__doc__.split())
            defs[name] = record
        return {"$ref": f"#/$defs/{name}"}
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *marks = typing.get_args(tp)
        out = schema_of(base, defs)
        for mark in marks:
            if isinstance(mark, Name):
                out = {**out, **mark.schema()}
        return out
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [schema_of(o, defs) for o in typing.get_args(tp)]}
    if origin is list:
        return {"type": "array", "items": schema_of(typing.get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": schema_of(typing.get_args(tp)[1], defs)}
    if tp is int:  # the range decoding enforces, so a client can check it too
        return {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER}
    simple = {str: "string", float: "number", bool: "boolean", type(None): "null"}
    return {"type": simple[tp]}
