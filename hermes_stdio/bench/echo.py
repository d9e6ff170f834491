"""The raw-pipe floor: a minimal framed JSON-RPC process (stdlib only, run by path).

Contract: reads LSP-framed JSON-RPC requests on stdin, one ``os.read`` loop,
no threads. ``echo`` answers with its params as the result. ``stream``
(params ``sessionId``, ``count``, ``size``, ``interval_ms``) answers at once,
then writes ``count`` ``run/delta`` notifications shaped exactly like a
worker's (text = the same stamp format as the synthetic agent, taken just
before each frame is encoded), each with its own ``os.write``, then one
``run/completed``. Exits on EOF. It imports nothing from hermes_stdio, so it
costs what a bare Python process costs: this is the physical floor.
"""

from __future__ import annotations

import json
import os
import sys
import time

STAMP_DIGITS = 19


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _stream(fd: int, params: dict[str, object]) -> None:
    session_id = str(params.get("sessionId", "s"))
    count = int(params.get("count", 100))  # type: ignore[call-overload]
    size = max(STAMP_DIGITS + 1, int(params.get("size", 20)))  # type: ignore[call-overload]
    interval_ns = int(params.get("interval_ms", 0)) * 1_000_000  # type: ignore[call-overload]
    pad = "." * (size - STAMP_DIGITS - 1)
    run_id, sid = json.dumps("run_" + session_id), json.dumps(session_id)
    head = (
        '{"jsonrpc":"2.0","method":"run/delta","params":'
        f'{{"runId":{run_id},"sessionId":{sid},"seq":'
    )
    now = time.monotonic_ns
    next_at = now()
    seq = 0
    for seq in range(1, count + 1):
        if interval_ns:
            wait = next_at - now()
            if wait > 0:
                time.sleep(wait / 1e9)
            next_at += interval_ns
        text = f"{now():0{STAMP_DIGITS}d}|{pad}"
        body = f'{head}{seq},"text":{json.dumps(text)}}}}}'.encode()
        _write_all(fd, _frame(body))
    done = {
        "jsonrpc": "2.0",
        "method": "run/completed",
        "params": {
            "runId": "run_" + session_id,
            "sessionId": session_id,
            "seq": seq + 1,
            "status": "complete",
        },
    }
    _write_all(fd, _frame(json.dumps(done).encode()))


def main() -> int:
    rfd, wfd = sys.stdin.fileno(), sys.stdout.fileno()
    buf = b""
    while True:
        data = os.read(rfd, 1 << 16)
        if not data:
            return 0
        buf += data
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                break
            length = 0
            for line in buf[:end].split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(buf) < end + 4 + length:
                break
            body, buf = buf[end + 4 : end + 4 + length], buf[end + 4 + length :]
            msg = json.loads(body)
            params = msg.get("params") or {}
            reply = {"jsonrpc": "2.0", "id": msg.get("id"), "result": params}
            _write_all(wfd, _frame(json.dumps(reply, separators=(",", ":")).encode()))
            if msg.get("method") == "stream":
                _stream(wfd, params)


if __name__ == "__main__":
    sys.exit(main())
