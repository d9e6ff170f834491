"""FrameDecoder / encode_frame: byte-exact LSP framing in any chunking."""

from __future__ import annotations

import random

import pytest

from hermes_stdio.wire import Frame, FrameDecoder, FrameError, encode_frame


def frame(body: bytes) -> bytes:
    return encode_frame(body)


def feed_chunks(data: bytes, cuts: list[int], **kwargs: int) -> list[Frame | FrameError]:
    """Feed ``data`` split at the sorted positions ``cuts``; return every event."""
    decoder = FrameDecoder(**kwargs)
    events: list[Frame | FrameError] = []
    start = 0
    for cut in [*cuts, len(data)]:
        events += decoder.feed(data[start:cut])
        start = cut
    return events


def every_single_split(data: bytes):
    for i in range(len(data) + 1):
        yield [i]


def random_chunkings(data: bytes, trials: int, seed: int):
    rng = random.Random(seed)
    for _ in range(trials):
        count = rng.randint(1, max(1, min(len(data), 40)))
        yield sorted(rng.sample(range(len(data) + 1), count))


def bytewise(data: bytes) -> list[int]:
    return list(range(1, len(data)))


def all_chunkings(data: bytes, trials: int = 200, seed: int = 1234):
    yield []
    yield bytewise(data)
    yield from every_single_split(data)
    yield from random_chunkings(data, trials, seed)


def frames_of(events: list[Frame | FrameError]) -> list[bytes]:
    return [e.body for e in events if isinstance(e, Frame)]


def errors_of(events: list[Frame | FrameError]) -> list[FrameError]:
    return [e for e in events if isinstance(e, FrameError)]


# --- encoding ---------------------------------------------------------------


def test_encode_frame_prefixes_the_byte_length_header():
    assert encode_frame(b'{"a":1}') == b'Content-Length: 7\r\n\r\n{"a":1}'


def test_encode_frame_counts_utf8_bytes_not_characters():
    body = "h\u00e9\u20ac\U0001f600".encode()
    assert encode_frame(body) == b"Content-Length: 10\r\n\r\n" + body


def test_an_empty_body_is_a_valid_frame():
    assert FrameDecoder().feed(b"Content-Length: 0\r\n\r\n") == [Frame(b"")]


# --- good input in any chunking --------------------------------------------


def test_a_whole_frame_decodes_to_its_exact_body():
    body = b'{"jsonrpc":"2.0","method":"x"}'
    decoder = FrameDecoder()
    assert decoder.feed(frame(body)) == [Frame(body)]
    assert decoder.buffered == 0


def test_a_frame_split_at_every_byte_decodes_identically():
    body = b'{"jsonrpc":"2.0","id":1,"method":"run/start","params":{}}'
    data = frame(body)
    for cuts in every_single_split(data):
        assert feed_chunks(data, cuts) == [Frame(body)], cuts


def test_frames_fed_one_byte_at_a_time_decode_identically():
    data = frame(b"one") + frame(b"two")
    assert feed_chunks(data, bytewise(data)) == [Frame(b"one"), Frame(b"two")]


def test_random_chunkings_of_many_frames_decode_identically():
    rng = random.Random(99)
    bodies = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 60))) for _ in range(25)]
    data = b"".join(frame(b) for b in bodies)
    for cuts in random_chunkings(data, trials=300, seed=7):
        assert frames_of(feed_chunks(data, cuts)) == bodies, cuts


def test_several_frames_in_one_read_are_all_returned_in_order():
    data = frame(b"a") + frame(b"bb") + frame(b"ccc")
    assert FrameDecoder().feed(data) == [Frame(b"a"), Frame(b"bb"), Frame(b"ccc")]


def test_a_trailing_partial_frame_emits_nothing_until_complete():
    full = frame(b"first") + frame(b"second")
    cut = len(frame(b"first"))
    for end in range(len(full)):
        assert FrameDecoder().feed(full[:end]) == ([Frame(b"first")] if end >= cut else [])
    decoder = FrameDecoder()
    assert decoder.feed(full[:-1]) == [Frame(b"first")]
    assert decoder.feed(full[-1:]) == [Frame(b"second")]


def test_multibyte_utf8_bodies_split_inside_a_character_decode_identically():
    body = '{"text":"h\u00e9 \u20ac \U0001f600 \u65e5\u672c"}'.encode()
    assert len(body) > len(body.decode())
    data = frame(body)
    for cuts in all_chunkings(data, trials=50):
        assert feed_chunks(data, cuts) == [Frame(body)]


def test_header_names_are_case_insensitive():
    for name in (b"content-length", b"CONTENT-LENGTH", b"cOnTeNt-LeNgTh"):
        data = name + b": 2\r\n\r\nhi"
        for cuts in all_chunkings(data, trials=20):
            assert feed_chunks(data, cuts) == [Frame(b"hi")], (name, cuts)


@pytest.mark.parametrize(
    "content_type",
    [
        b"application/vscode-jsonrpc; charset=utf-8",
        b"application/vscode-jsonrpc; charset=UTF-8",
        b'application/json; charset="utf8"',
        b"application/json",
    ],
)
def test_a_content_type_with_utf8_or_no_charset_is_accepted(content_type: bytes):
    for order in ("type-first", "length-first"):
        ct = b"Content-Type: " + content_type + b"\r\n"
        cl = b"Content-Length: 2\r\n"
        data = (ct + cl if order == "type-first" else cl + ct) + b"\r\nhi"
        for cuts in all_chunkings(data, trials=30):
            assert feed_chunks(data, cuts) == [Frame(b"hi")], (order, cuts)


def test_a_non_utf8_charset_is_rejected_and_the_next_frame_still_decodes():
    bad = b"Content-Length: 2\r\nContent-Type: text/plain; charset=latin-1\r\n\r\n"
    data = bad + b"hi" + frame(b"ok")
    for cuts in all_chunkings(data, trials=50):
        events = feed_chunks(data, cuts)
        assert [e.kind for e in errors_of(events)][:1] == ["bad_header"], cuts
        assert frames_of(events) == [b"ok"], cuts


# --- bad Content-Length -------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Type: application/json\r\n\r\n",  # missing Content-Length
        b"Content-Length: -5\r\n\r\n",
        b"Content-Length: five\r\n\r\n",
        b"Content-Length: 0x10\r\n\r\n",
        b"Content-Length: \r\n\r\n",
        b"Content-Length: 123456789012345678901234\r\n\r\n",  # too many digits
        b"Content-Length: 2\r\nno colon here\r\n\r\n",
    ],
)
def test_a_bad_header_is_reported_and_the_next_frame_decodes_in_every_chunking(header: bytes):
    data = header + frame(b"next")
    expected = None
    for cuts in all_chunkings(data, trials=60):
        events = feed_chunks(data, cuts)
        assert frames_of(events) == [b"next"], cuts
        assert errors_of(events)[0].kind == "bad_header", cuts
        assert not any(e.fatal for e in errors_of(events))
        expected = expected or events
        assert events == expected, cuts


def test_a_body_over_max_body_bytes_is_reported_too_large_and_skipped_byte_accurately():
    # The oversized body itself looks like a frame: it must be skipped, not decoded.
    big = frame(b"HIDDEN") + frame(b"HIDDEN") + b"x" * 26
    assert len(big) == 80
    data = frame(big) + frame(b"after")
    for cuts in all_chunkings(data, trials=300):
        events = feed_chunks(data, cuts, max_body_bytes=20)
        assert events == [FrameError("too_large", events[0].detail, 80), Frame(b"after")], cuts


def test_a_body_exactly_at_max_body_bytes_is_accepted():
    assert FrameDecoder(max_body_bytes=5).feed(frame(b"12345")) == [Frame(b"12345")]


def test_an_oversized_body_is_not_buffered_while_it_is_skipped():
    decoder = FrameDecoder(max_body_bytes=10_000)
    events = decoder.feed(b"Content-Length: 100000\r\n\r\n")
    assert [e.kind for e in errors_of(events)] == ["too_large"]
    for _ in range(99):
        assert decoder.feed(b"z" * 1000) == []
        assert decoder.buffered == 0
    assert decoder.feed(b"z" * 1000 + frame(b"ok")) == [Frame(b"ok")]


# --- junk and fatal errors ---------------------------------------------------


def test_junk_then_a_valid_frame_gives_identical_events_in_every_chunking():
    data = b"garbage\r\n\r\nmore cont junk" + frame(b"payload") + frame(b"second")
    baseline = FrameDecoder().feed(data)
    assert frames_of(baseline) == [b"payload", b"second"]
    assert [(e.kind, e.skipped) for e in errors_of(baseline)] == [
        ("junk", len(b"garbage\r\n\r\nmore cont junk"))
    ]
    for cuts in all_chunkings(data, trials=300):
        assert feed_chunks(data, cuts) == baseline, cuts


def test_junk_ending_in_a_header_prefix_is_not_mistaken_for_a_split_header():
    data = b"Content-Lxyz Content-" + frame(b"ok")
    for cuts in all_chunkings(data, trials=100):
        events = feed_chunks(data, cuts)
        assert frames_of(events) == [b"ok"], cuts
        assert [(e.kind, e.skipped) for e in errors_of(events)] == [("junk", 21)], cuts


def test_a_header_with_space_before_the_colon_decodes_the_same_in_every_chunking():
    data = b"Content-Length : 2\r\n\r\nhi"
    assert FrameDecoder().feed(data) == [Frame(b"hi")]
    for cuts in every_single_split(data):
        assert feed_chunks(data, cuts) == [Frame(b"hi")], cuts


def test_repeated_bad_headers_are_fatal_and_close_the_decoder():
    decoder = FrameDecoder(max_consecutive_errors=4)
    events = decoder.feed(b"Content-Length: x\r\n\r\n" * 10 + frame(b"never"))
    assert [e.kind for e in events] == ["bad_header"] * 3 + ["fatal"]
    assert events[-1].fatal
    assert decoder.closed
    assert decoder.buffered == 0
    assert decoder.feed(frame(b"still never")) == []


def test_the_default_error_limit_makes_sixteen_bad_headers_in_a_row_fatal():
    data = b"Content-Length: x\r\n\r\n" * 16
    for cuts in random_chunkings(data, trials=30, seed=3):
        events = feed_chunks(data, cuts)
        assert [e.kind for e in events] == ["bad_header"] * 15 + ["fatal"], cuts


def test_a_good_frame_resets_the_consecutive_error_count():
    decoder = FrameDecoder(max_consecutive_errors=3)
    bad = b"Content-Length: x\r\n\r\n"
    events = decoder.feed((bad * 2 + frame(b"ok")) * 5)
    assert not any(e.fatal for e in errors_of(events))
    assert frames_of(events) == [b"ok"] * 5
    assert not decoder.closed


def test_too_much_junk_in_a_row_is_fatal():
    decoder = FrameDecoder(max_junk_bytes=100)
    events = decoder.feed(b"j" * 50)
    assert events == []
    events = decoder.feed(b"j" * 51 + frame(b"never"))
    assert [e.kind for e in events] == ["fatal"]
    assert decoder.closed
    assert decoder.feed(frame(b"x")) == []


def test_a_header_block_longer_than_max_header_bytes_is_a_bad_header():
    decoder = FrameDecoder(max_header_bytes=64)
    events = decoder.feed(b"Content-Length: 2\r\nX-Pad: " + b"p" * 200 + b"\r\n\r\nhi")
    assert errors_of(events)[0].kind == "bad_header"
    assert decoder.feed(frame(b"ok"))[-1] == Frame(b"ok")


def test_a_frame_error_is_fatal_only_for_the_fatal_kind():
    assert FrameError("fatal", "x").fatal
    for kind in ("junk", "bad_header", "too_large"):
        assert not FrameError(kind, "x").fatal  # type: ignore[arg-type]


# --- a bad header block never swallows the next frame ------------------------

NEXT = frame(b'{"x":1}')


@pytest.mark.parametrize(
    "bad",
    [
        b"Content-Length: 5\n\nhello",  # LF-only line ends
        b"Content-Length: 5\nhello\n",
        b"Content-Length: 5\r\nhello",  # no blank line: the next header is mid-line
        b"Content-Length: 5\r\n",  # no blank line: the next header repeats Content-Length
        b"Content-Length: 5\r\nContent-Type: application/json\r\n",
        b"Content-Length: x\r\nX-Pad: 1",
    ],
)
def test_a_malformed_header_block_is_skipped_only_up_to_the_next_frame_in_every_chunking(
    bad: bytes,
):
    data = bad + NEXT
    for cuts in all_chunkings(data, trials=100):
        events = feed_chunks(data, cuts)
        assert events == [
            FrameError("bad_header", events[0].detail, len(bad)),
            Frame(b'{"x":1}'),
        ], cuts


@pytest.mark.parametrize(
    "junk", [b"oops content-type: text", b"log: Content-Type: x\r\n\r\n{}", b"a\r\nb content-type:"]
)
def test_content_type_mid_line_is_junk_and_the_next_frame_decodes_in_every_chunking(junk: bytes):
    data = junk + NEXT
    for cuts in all_chunkings(data, trials=100):
        events = feed_chunks(data, cuts)
        assert events == [FrameError("junk", events[0].detail, len(junk)), Frame(b'{"x":1}')], cuts


def test_a_content_type_first_frame_starts_after_a_line_end_or_a_frame_in_every_chunking():
    typed = b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\nhi"
    data = b"some log line\n" + typed + frame(b"a") + typed
    for cuts in all_chunkings(data, trials=200):
        events = feed_chunks(data, cuts)
        assert events == [
            FrameError("junk", events[0].detail, len(b"some log line\n")),
            Frame(b"hi"),
            Frame(b"a"),
            Frame(b"hi"),
        ], cuts


def test_bad_header_blocks_between_good_frames_never_lose_a_good_frame_in_random_chunkings():
    bad = [
        b"Content-Length: 5\n\nhello",
        b"Content-Length: 5\r\n",
        b"Content-Length: x\r\nX-Pad: 1",
        b"Content-Length: x\r\n\r\n",
        b"oops content-type: text",
        b"Content-Length: 2\r\nContent-Type: text/plain; charset=latin-1\r\n\r\nhi",
        b"Content-Length: 99999999999999999999\r\n\r\n",
    ]
    rng = random.Random(5)
    for trial in range(40):
        pieces: list[bytes] = []
        bodies: list[bytes] = []
        for i in range(12):
            pieces += rng.sample(bad, rng.randint(0, 2))
            bodies.append(b"good %d.%d" % (trial, i))
            if rng.random() < 0.3:
                pieces.append(b"Content-Type: x/y\r\nContent-Length: %d\r\n\r\n" % len(bodies[-1]))
                pieces.append(bodies[-1])
            else:
                pieces.append(frame(bodies[-1]))
        data = b"".join(pieces)
        for cuts in [[], bytewise(data), *random_chunkings(data, trials=10, seed=trial)]:
            events = feed_chunks(data, cuts, max_consecutive_errors=1000)
            assert frames_of(events) == bodies, (trial, cuts)


# --- an absurd Content-Length ------------------------------------------------


@pytest.mark.parametrize("length", [b"321", b"99999999999999999999"])
def test_a_content_length_over_sixteen_times_the_body_limit_is_a_bad_header_in_every_chunking(
    length: bytes,
):
    header = b"Content-Length: " + length + b"\r\n\r\n"
    data = header + frame(b"next")
    for cuts in all_chunkings(data, trials=100):
        events = feed_chunks(data, cuts, max_body_bytes=20)
        assert events == [FrameError("bad_header", events[0].detail, len(header)), Frame(b"next")]


def test_a_content_length_of_exactly_sixteen_times_the_body_limit_is_skipped_byte_accurately():
    # The skipped body looks like frames: it must be skipped, not decoded.
    data = b"Content-Length: 320\r\n\r\n" + (frame(b"HIDDEN") * 12)[:320] + frame(b"after")
    for cuts in all_chunkings(data, trials=100):
        events = feed_chunks(data, cuts, max_body_bytes=20)
        assert events == [FrameError("too_large", events[0].detail, 320), Frame(b"after")], cuts


def test_input_after_an_absurd_content_length_is_decoded_and_the_junk_limit_still_applies():
    decoder = FrameDecoder(max_junk_bytes=100)
    events = decoder.feed(b"Content-Length: 99999999999999999999\r\n\r\n")
    assert [e.kind for e in events] == ["bad_header"]
    body = b"x" * 1000
    assert decoder.feed(frame(body) * 1100) == [Frame(body)] * 1100
    assert [e.kind for e in decoder.feed(b"j" * 101)] == ["fatal"]


# --- random streams ---------------------------------------------------------

_PIECES = [
    lambda r: frame(b'{"a":%d}' % r.randrange(100)),
    lambda r: b"Content-Length: %d\r\n\r\n" % r.randrange(40),
    lambda r: b"content-length:%d\r\n" % r.randrange(40),
    lambda r: b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
    lambda r: b"content-type: x\r\n",
    lambda r: r.choice([b"\r\n", b"\n", b"\r", b"Content-Len", b"gth: 5\r\n\r\nhello"]),
    lambda r: r.choice([b"Content-Length: 99999999999999999999\r\n\r\n", b"Content-Length: -1"]),
    lambda r: bytes(r.randrange(256) for _ in range(r.randrange(1, 12))),
    lambda r: b"x" * r.randrange(1, 300),
]


@pytest.mark.parametrize("seed", range(300))
def test_any_mix_of_frames_junk_and_broken_headers_decodes_the_same_in_every_chunking(seed: int):
    rng = random.Random(seed)
    data = b"".join(rng.choice(_PIECES)(rng) for _ in range(rng.randrange(1, 25)))
    limits = {
        "max_body_bytes": rng.choice([16, 64, 1 << 20]),
        "max_header_bytes": rng.choice([24, 60, 8192]),
        "max_consecutive_errors": rng.choice([3, 8, 1000]),
        "max_junk_bytes": rng.choice([64, 4096]),
    }
    whole = feed_chunks(data, [], **limits)
    assert feed_chunks(data, bytewise(data), **limits) == whole
    for cuts in random_chunkings(data, trials=20, seed=seed):
        assert feed_chunks(data, cuts, **limits) == whole, cuts
