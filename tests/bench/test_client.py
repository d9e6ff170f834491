"""The bench's framed host: round trips read on the calling thread."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hermes_stdio.bench.client import FramedClient, Stream
from hermes_stdio.bench.relay import ECHO

TIMEOUT = 30.0


def test_round_trips_read_here_lose_nothing_that_arrives_around_them(tmp_path: Path) -> None:
    client = FramedClient([sys.executable, ECHO], dict(os.environ), tmp_path / "echo.log")
    try:
        stream = client.watch("s", Stream("stamp", 20))
        # Not waited for: the stream's frames arrive while the reader thread parks and
        # while this thread reads, so both must decode the same byte stream.
        client.send("stream", {"sessionId": "s", "count": 3000, "size": 20})
        samples = client.round_trips("echo", {"n": 1}, 25, TIMEOUT)
        stream.wait_done(TIMEOUT)
        assert len(samples) == 25 and min(samples) > 0
        assert stream.units == 3000 and stream.completion is not None
        # The reader thread reads again afterwards.
        assert client.request("echo", {"n": 2}, TIMEOUT) == {"n": 2}
        assert client.round_trips("echo", {}, 3, TIMEOUT)
    finally:
        client.close()
