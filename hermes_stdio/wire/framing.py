"""LSP base-protocol framing, sans I/O.

Contract:
- ``FrameDecoder.feed(data)`` accepts bytes in any chunking and returns the
  events completed by them, in order: ``Frame`` (one body, exact bytes) or
  ``FrameError`` (something was skipped; decoding goes on). The sequence of
  frames does not depend on how the input was chunked.
- A frame is ``Content-Length: N\\r\\n`` plus optional other headers
  (``Content-Type`` is accepted), ``\\r\\n``, then exactly N body bytes.
  Header names are case-insensitive; each appears at most once.
- A frame starts at a ``Content-Length`` header, even right after junk on the
  same line, or at a ``Content-Type`` header at the start of the stream, of a
  line or right after a frame; ``content-type:`` mid-line is junk.
- Bad headers, junk between frames and oversized bodies never raise: the
  decoder reports them and resynchronises on the next frame start. A header
  block ends at its blank line or where another frame starts (a
  ``Content-Length`` not at a CRLF line start, a header after a bare LF, a
  repeated header), so a bad block never swallows the next frame.
- A body over ``max_body_bytes`` is skipped byte-accurately without being
  buffered. A ``Content-Length`` over 16 x ``max_body_bytes`` is a bad header
  instead: no sender writes that much, and skipping it would eat all later input.
- After ``max_consecutive_errors`` errors with no good frame between them, or
  more than ``max_junk_bytes`` of junk in a row, a fatal ``FrameError`` is
  returned and the decoder accepts nothing more.

``encode_frame(body)`` is the inverse for one body.
"""

from __future__ import annotations

import re
from typing import Final, Literal, NamedTuple

DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024 * 1024


def link_body_limit(host_limit: int) -> int:
    """The body limit between the supervisor and its workers: never below the default,
    so a host that lowers what the server accepts from it does not make the supervisor
    drop what its own workers send (a long answer, a tool call's diffs)."""
    return max(host_limit, DEFAULT_MAX_BODY_BYTES)


DEFAULT_MAX_HEADER_BYTES: Final = 8 * 1024
_HEADER_END: Final = b"\r\n\r\n"
_LF: Final = ord("\n")
_HEADER_NAME: Final = re.compile(rb"content-(length|type)[ \t]*:", re.IGNORECASE)
# Where a frame can start past the first byte; a Content-Type at ``_pos`` itself is
# checked against ``_line_start``, as the byte before it may be gone from the buffer.
_FRAME_START: Final = re.compile(rb"(?:content-length|(?<=\n)content-type)[ \t]*:", re.IGNORECASE)
# A longer claimed body is no real frame: resync rather than skip it.
_MAX_SKIP_FACTOR: Final = 16
_LENGTH_VALUE: Final = re.compile(rb"^[0-9]{1,20}$")
# The header every conforming sender writes; anything else takes the general path.
_PLAIN_HEADER: Final = re.compile(rb"Content-Length: ([0-9]{1,20})\r\n\r\n")
_CHARSET: Final = re.compile(rb"charset\s*=\s*\"?([A-Za-z0-9_-]+)", re.IGNORECASE)
_FULL_NAMES: Final = (b"content-length", b"content-type")
_NAME_PREFIXES: Final = frozenset(n[:i] for n in _FULL_NAMES for i in range(1, len(n) + 1))
_TAIL_MAX: Final = 64  # a name plus any whitespace before its colon

FrameErrorKind = Literal["junk", "bad_header", "too_large", "fatal"]


class Frame(NamedTuple):
    body: bytes


class FrameError(NamedTuple):
    kind: FrameErrorKind
    detail: str
    skipped: int = 0

    @property
    def fatal(self) -> bool:
        return self.kind == "fatal"


def encode_frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    def __init__(
        self,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
        max_consecutive_errors: int = 16,
        max_junk_bytes: int = 1024 * 1024,
    ) -> None:
        self.max_body_bytes = max_body_bytes
        self.max_header_bytes = max_header_bytes
        self.max_consecutive_errors = max_consecutive_errors
        self.max_junk_bytes = max_junk_bytes
        self._buf = bytearray()
        self._pos = 0  # start of the unconsumed bytes in _buf
        self._body_len: int | None = None  # set while reading a body
        self._discard = 0  # bytes of an oversized body still to skip
        self._errors_in_row = 0
        self._junk_pending = 0  # junk dropped since the last frame start, not yet reported
        self._line_start = True  # _pos is at the stream start, a line start or a frame end
        self.closed = False

    @property
    def buffered(self) -> int:
        return len(self._buf) - self._pos

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        if self.closed:
            return []
        self._buf += data
        events: list[Frame | FrameError] = []
        while not self.closed:
            event = self._next()
            if event is None:
                break
            events.append(event)
        # Consumed bytes leave once per feed, not once per frame (no quadratic memmove).
        if self._pos:
            del self._buf[: self._pos]
            self._pos = 0
        return events

    def _next(self) -> Frame | FrameError | None:
        buf = self._buf
        while True:
            if self._discard:
                skip = min(self._discard, len(buf) - self._pos)
                self._pos += skip
                self._discard -= skip
                if self._discard:
                    return None
                self._line_start = True
            if self._body_len is None:
                event = self._parse_header()
                if event is not None or self._body_len is None:
                    return event
            end = self._pos + self._body_len
            if len(buf) < end:
                return None
            body = bytes(buf[self._pos : end])
            self._pos = end
            self._body_len = None
            self._line_start = True
            self._errors_in_row = 0
            return Frame(body)

    def _parse_header(self) -> FrameError | None:
        """Consume one header block (setting ``_body_len``) or report what was skipped."""
        buf, pos = self._buf, self._pos
        if pos >= len(buf):
            return None
        plain = _PLAIN_HEADER.match(buf, pos)
        if plain is not None and not self._junk_pending:
            plain_length = int(plain.group(1))
            if plain_length <= self.max_body_bytes:
                self._pos = plain.end()
                self._body_len = plain_length
                return None
        start = self._frame_start(pos)
        # Junk is reported once per run of junk, however it was chunked.
        cut = len(buf) - pos - _partial_header_tail(buf, pos) if start is None else start - pos
        if cut:
            pos = self._pos = pos + cut
            self._line_start = buf[pos - 1] == _LF
            self._junk_pending += cut
            if self._junk_pending > self.max_junk_bytes:
                return self._fatal(f"more than {self.max_junk_bytes} bytes of junk in a row")
        if start is None:
            return None
        if self._junk_pending:
            skipped, self._junk_pending = self._junk_pending, 0
            return self._count(FrameError("junk", "junk before a frame header", skipped))
        window = pos + self.max_header_bytes + len(_HEADER_END)
        end = buf.find(_HEADER_END, pos, window)
        # The first \r\n\r\n may be a later frame's: skip a bad block only up to there.
        cut_short = _next_frame_in_block(buf, pos, end if end >= 0 else min(len(buf), window))
        if cut_short is not None:
            return self._error(
                "bad_header", "header block cut short by another frame header", cut_short - pos
            )
        if end < 0:
            # Only a full window decides, so the outcome does not depend on chunking.
            if len(buf) >= window:
                return self._error("bad_header", "header block too long", self.max_header_bytes)
            return None
        consumed = end + len(_HEADER_END) - pos
        length, problem = _content_length(bytes(buf[pos:end]))
        if length is None:
            return self._error("bad_header", problem, consumed)
        if length > self.max_body_bytes * _MAX_SKIP_FACTOR:
            return self._error(
                "bad_header",
                f"Content-Length {length} is beyond {_MAX_SKIP_FACTOR} x {self.max_body_bytes}",
                consumed,
            )
        self._pos = pos + consumed
        if length > self.max_body_bytes:
            self._discard = length
            return self._count(
                FrameError(
                    "too_large", f"body of {length} bytes exceeds {self.max_body_bytes}", length
                )
            )
        self._body_len = length
        return None

    def _frame_start(self, pos: int) -> int | None:
        here = _HEADER_NAME.match(self._buf, pos)
        if here is not None and (self._line_start or here.group(1).lower() == b"length"):
            return pos
        found = _FRAME_START.search(self._buf, pos + 1)
        return None if found is None else found.start()

    def _error(self, kind: FrameErrorKind, detail: str, consumed: int) -> FrameError:
        self._pos += consumed
        self._line_start = self._buf[self._pos - 1] == _LF
        return self._count(FrameError(kind, detail, consumed))

    def _count(self, error: FrameError) -> FrameError:
        self._errors_in_row += 1
        if self._errors_in_row >= self.max_consecutive_errors:
            return self._fatal(
                f"{self._errors_in_row} framing errors in a row (last: {error.detail})"
            )
        return error

    def _fatal(self, detail: str) -> FrameError:
        self.closed = True
        self._buf.clear()
        self._pos = 0
        return FrameError("fatal", detail)


def _content_length(block: bytes) -> tuple[int | None, str]:
    length: int | None = None
    for line in block.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if not sep or not name.strip():
            return None, f"malformed header line {line[:60]!r}"
        key = name.strip().lower()
        value = value.strip()
        if key == b"content-length":
            if not _LENGTH_VALUE.match(value):
                return None, f"invalid Content-Length {value[:30]!r}"
            length = int(value)
        elif key == b"content-type":
            charset = _CHARSET.search(value)
            if charset and charset.group(1).lower() not in (b"utf-8", b"utf8"):
                return None, f"unsupported charset {charset.group(1)!r}"
    if length is None:
        return None, "missing Content-Length header"
    return length, ""


def _next_frame_in_block(buf: bytearray, pos: int, stop: int) -> int | None:
    """Where another frame starts inside the header block at ``pos`` (before ``stop``).

    A block's own headers sit at CRLF line starts, each name once; any other
    frame start can only belong to the next frame."""
    seen: set[bytes] = set()
    for header in _HEADER_NAME.finditer(buf, pos, stop):
        at, name = header.start(), bytes(header.group(1)).lower()
        if at == pos or (buf[at - 2 : at] == b"\r\n" and name not in seen):
            seen.add(name)
        elif name == b"length" or buf[at - 1] == _LF:
            return at
    return None


def _partial_header_tail(buf: bytearray, pos: int) -> int:
    """Length of the longest suffix of ``buf[pos:]`` that could begin a header split
    across reads."""
    tail = bytes(buf[max(pos, len(buf) - _TAIL_MAX) :]).lower()
    for start in range(len(tail)):
        piece = tail[start:]
        if piece in _NAME_PREFIXES or piece.rstrip(b" \t") in _FULL_NAMES:
            return len(piece)
    return 0
