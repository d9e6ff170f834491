"""JSON text for the wire: the standard library's codec, and orjson once it is loaded.

Contract:
- ``loads(body)`` decodes one UTF-8 JSON text as ``json`` does with NaN and
  Infinity refused, raising ``UnicodeDecodeError`` (bad UTF-8),
  ``RecursionError`` or ``ValueError`` (not JSON). With orjson loaded it is
  tried first, and whatever it refuses goes to ``json``, which decides and
  words the error; so the values are the same either way (orjson refuses
  lone-surrogate escapes and numbers beyond a double, which ``json`` takes).
  A body holding 19 or more digits in a row goes to ``json`` at once:
  orjson reads an integer beyond 64 bits as a float.
- ``dumps_fast(value)`` is compact UTF-8 bytes from orjson, or None when it
  is not loaded or refuses the value (a lone surrogate, an integer beyond 64
  bits, a key that is not a string, an object JSON has no form for): the
  caller then takes ``dumps_text``. Unlike ``json``, orjson also writes enum
  members and UUIDs, by value.
- ``dumps_text(value, ascii=...)`` is ``json``'s compact text.
- Both write a non-finite float as null, as JavaScript's ``JSON.stringify``
  does; both raise on other values JSON cannot carry.
- ``load_fast()`` imports orjson where it is installed and says whether it is
  loaded. It costs ~10 ms, so a process that must answer at once loads it
  afterwards, from another thread; until then, and without orjson, ``json``
  does everything.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_orjson: Any = None  # the orjson module, once loaded
_FAST_OPTIONS = 0
# An integer orjson would read as a float (beyond -2**63 .. 2**64-1) has 19+ digits.
_LONG_DIGITS = re.compile(rb"[0-9]{19}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# One decoder: json.loads(..., parse_constant=...) would build a new one per message.
_decode = json.JSONDecoder(parse_constant=_reject_constant).decode
_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_ascii = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode


def load_fast() -> bool:
    global _orjson, _FAST_OPTIONS
    if _orjson is None:
        try:
            import orjson
        except ImportError:
            return False
        # Objects json refuses go to ``default``, which refuses them too.
        _FAST_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
        _orjson = orjson
    return True


def fast_loaded() -> bool:
    return _orjson is not None


def loads(body: bytes) -> Any:
    fast = _orjson
    if fast is not None and not _LONG_DIGITS.search(body):
        try:
            return fast.loads(body)
        except fast.JSONDecodeError:
            pass  # json decides: it accepts some of these, and says why it refuses the rest
    return _decode(body.decode("utf-8"))


def _refuse(value: object) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps_fast(value: Any) -> bytes | None:
    fast = _orjson
    if fast is None:
        return None
    try:
        out: bytes = fast.dumps(value, default=_refuse, option=_FAST_OPTIONS)
    except fast.JSONEncodeError:
        return None
    return out


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def dumps_text(value: Any, *, ascii: bool = False) -> str:
    encode = _ascii if ascii else _text
    try:
        return encode(value)
    except ValueError as exc:  # a non-finite float, or a circular reference
        try:
            finite = _finite(value)
        except RecursionError:
            raise exc from None
        return encode(finite)
