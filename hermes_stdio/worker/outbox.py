"""How a run's notifications reach the wire, numbered at the moment they are written.

Contract:
- ``Outbox`` is what a ``Run`` writes through: ``send_lazy`` queues an item
  rendered when written, ``merge_tail`` appends delta text to the last queued
  item when it is the same run's unwritten delta. ``FrameWriter`` is one;
  ``ImmediateOutbox`` wraps a plain ``send(bytes)`` callable and renders at once.
- Items take their ``seq`` from the run when rendered, and stamp the run's
  ``last_written`` (what a lingering writer batches a fast run by).
  Rendering happens in queue order on one thread, so ``seq`` is 1, 2, 3 ...
  in wire order, and a delta that absorbed later text still has one seq:
  while the reader lags, consecutive deltas of a run become fewer, larger
  frames with the same text.
- ``TextItem`` is a notification outside any run that carries streamed text
  (a subagent's reply): it absorbs later text under the same ``key`` while it
  is unwritten, up to ``cap`` characters, and lingers by its ``TextStream``
  as a run's deltas do.
- Text is sent as the agent produced it, except that a lone surrogate (which
  UTF-8 cannot carry) becomes U+FFFD, as in every notification (``wire.jsonrpc``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..transport.writer import LazyBody
from ..wire.jsonrpc import encode_notification, to_jsonable, valid_utf8

_json_str = json.JSONEncoder(ensure_ascii=False).encode


class Numbered(Protocol):
    run_id: str
    session_id: str
    last_written: float  # when one of its items was last rendered (monotonic)

    def next_seq(self) -> int: ...


class Outbox(Protocol):
    def send_lazy(self, item: LazyBody) -> bool: ...

    def merge_tail(self, owner: object, text: str) -> bool: ...


class ImmediateOutbox:
    """Renders each item at once through ``send`` (no coalescing)."""

    def __init__(self, send: Callable[[bytes], bool]) -> None:
        self._send = send

    def send_lazy(self, item: LazyBody) -> bool:
        return self._send(item.render())

    def merge_tail(self, owner: object, text: str) -> bool:
        return False


def as_outbox(target: Outbox | Callable[[bytes], bool]) -> Outbox:
    return ImmediateOutbox(target) if callable(target) else target


class NoteItem:
    """A run notification whose params start with runId, sessionId and seq."""

    __slots__ = ("method", "payload", "run", "size")

    def __init__(self, run: Numbered, method: str, payload: dict[str, Any]) -> None:
        self.run = run
        self.method = method
        self.payload = payload
        self.size = 256

    @property
    def last_written(self) -> float:
        return self.run.last_written

    def render(self) -> bytes:
        run = self.run
        run.last_written = time.monotonic()
        params = {"runId": run.run_id, "sessionId": run.session_id, "seq": run.next_seq()}
        params.update(self.payload)
        try:
            body = encode_notification(self.method, params)
        except (TypeError, ValueError):  # an object JSON has no form for: its str, never dropped
            return encode_notification(self.method, to_jsonable(params))
        # The encoder writes NaN as null, and what the agent reported is sent with
        # "nan" in its place; only a body holding a null can have had one, which the
        # per-token events (reasoning.delta) seldom do, so they skip the walk.
        return encode_notification(self.method, to_jsonable(params)) if b"null" in body else body

    def merge(self, owner: object, text: str) -> bool:
        return False


class DeltaItem:
    """A ``run/delta``; absorbs later text of the same run until it is written."""

    __slots__ = ("head", "parts", "run", "size")

    def __init__(self, run: Numbered, head: str, text: str) -> None:
        self.run = run
        self.head = head
        self.parts = [text]
        self.size = len(text) + 128

    @property
    def last_written(self) -> float:
        return self.run.last_written

    def render(self) -> bytes:
        self.run.last_written = time.monotonic()
        text = self.parts[0] if len(self.parts) == 1 else "".join(self.parts)
        return valid_utf8(f'{self.head}{self.run.next_seq()},"text":{_json_str(text)}}}}}')

    def merge(self, owner: object, text: str) -> bool:
        if owner is not self.run:
            return False
        self.parts.append(text)
        self.size += len(text)
        return True


def delta_head(run_id: str, session_id: str) -> str:
    """The fixed start of a run's ``run/delta`` bodies (no dict walk per delta)."""
    return (
        '{"jsonrpc":"2.0","method":"run/delta","params":'
        f'{{"runId":{_json_str(run_id)},"sessionId":{_json_str(session_id)},"seq":'
    )


_TEXT_ITEM_FRAME = 256  # what a TextItem counts for its notification's other fields


class TextStream:
    """Whose text a ``TextItem`` carries: when an item of it was last rendered."""

    __slots__ = ("last_written",)

    def __init__(self) -> None:
        self.last_written = 0.0


class TextItem:
    """A notification outside any run whose body ``render_text(text)`` makes from
    streamed text; absorbs later text offered under an equal ``key`` while it is
    unwritten, up to ``cap`` characters."""

    __slots__ = ("cap", "key", "parts", "render_text", "size", "stream")

    def __init__(
        self,
        stream: TextStream,
        key: object,
        text: str,
        render_text: Callable[[str], bytes],
        *,
        cap: int,
    ) -> None:
        self.stream, self.key, self.render_text, self.cap = stream, key, render_text, cap
        self.parts = [text]
        self.size = len(text) + _TEXT_ITEM_FRAME  # the text's length, plus its frame

    @property
    def last_written(self) -> float:
        return self.stream.last_written

    def render(self) -> bytes:
        self.stream.last_written = time.monotonic()
        return self.render_text("".join(self.parts))

    def merge(self, owner: object, text: str) -> bool:
        if owner != self.key or self.size - _TEXT_ITEM_FRAME + len(text) > self.cap:
            return False
        self.parts.append(text)
        self.size += len(text)
        return True
