"""The scripted LLM in its own process: ``python -m hermes_stdio.bench.llm_proc``.

Why a process, and why not ``on_chunk_sent``: that hook stamps a chunk right
after its flush, and on a loaded 2-core machine the woken reader chain often
runs first (in the bench's own process the stamp would also wait for the GIL
behind the host's reader thread), so hosts appeared to see deltas *before*
they were sent. Here each token chunk is stamped with ``time.monotonic_ns()``
just before its bytes are written to the socket (a wrapper around the
handler's ``wfile``), which is when the LLM sends it.

Contract: starts a ``ScriptedLLM`` on 127.0.0.1 (default reply ``ok``) and
prints one JSON line ``{"base_url": ...}``. Then answers one JSON line per
command line on stdin: ``{"cmd": "arm", "count": N, "delay_ms": D}`` makes
every following completion stream N token chunks (``client.token(i)``) D ms
apart and forgets earlier send times; ``{"cmd": "ok"}`` restores the ``ok``
reply; ``{"cmd": "tools", "calls": [[name, args], ...]}`` makes the next
completions call those tools, one each, before the default reply;
``{"cmd": "sent"}`` answers ``{"sent": {i: t_ns}}``, the first flush
time of each token chunk since the last ``arm``. Exits on EOF.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from typing import Any

from ..testing import llm_server
from ..testing.llm_server import Reply, ScriptedLLM
from .client import token

_CHUNK = re.compile(rb'"content": "t(\d{6});"')
_lock = threading.Lock()
_sent: dict[int, int] = {}


class _StampingWriter:
    """Wraps a handler's ``wfile``: stamps each token chunk just before writing it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, data: bytes) -> Any:
        m = _CHUNK.search(data)
        if m is not None:
            t_ns = time.monotonic_ns()
            with _lock:
                _sent.setdefault(int(m.group(1)), t_ns)
        return self._inner.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _StampingHandler(llm_server._Handler):
    def setup(self) -> None:
        super().setup()
        self.wfile = _StampingWriter(self.wfile)  # type: ignore[assignment]


def main() -> int:
    lock, sent = _lock, _sent
    llm_server._Handler = _StampingHandler  # type: ignore[misc]  # used by ScriptedLLM.start
    llm = ScriptedLLM(default_reply=Reply.text(["ok"]), context_length=131072)
    llm.start()
    out = sys.stdout
    out.write(json.dumps({"base_url": llm.base_url}) + "\n")
    out.flush()
    try:
        for line in sys.stdin:
            cmd = json.loads(line)
            reply: dict[str, object] = {"ok": True}
            if cmd["cmd"] == "arm":
                with lock:
                    sent.clear()
                chunks = [token(i) for i in range(int(cmd["count"]))]
                llm.default_reply = Reply.text(chunks, delay=float(cmd["delay_ms"]) / 1e3)
            elif cmd["cmd"] == "ok":
                llm.default_reply = Reply.text(["ok"])
            elif cmd["cmd"] == "tools":
                llm.enqueue(*(Reply.tool_call(name, args) for name, args in cmd["calls"]))
            elif cmd["cmd"] == "sent":
                with lock:
                    reply = {"sent": dict(sent)}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        llm.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
