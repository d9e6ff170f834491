"""The same real agent in-process: ``python -m hermes_stdio.bench.inproc``.

Contract: a child of the bench, started with the bench's offline environment
(``HERMES_HOME`` set). It builds one session's agent with the worker's own
``HermesAdapter`` and an in-process sink that stamps each callback with
``time.monotonic_ns()`` (the "host receipt" when there is no wire). Commands
arrive as JSON lines on stdin: ``{"message": ...}`` runs one turn (history
reset each time) and answers one JSON line ``{"deltas": [[t_ns, text], ...],
"error": ...}``, after trimming the heap as a worker does after each run.
The wire is a private duplicate of fd 1; hermes' own prints go to stderr.
Exits on EOF.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..transport import take_over_stdio
from ..worker.adapter import HermesAdapter
from ..worker.memory import release_free_memory
from ..worker.state import Session


class _Sink:
    def __init__(self) -> None:
        self.deltas: list[tuple[int, str]] = []

    def delta(self, text: str) -> None:
        self.deltas.append((time.monotonic_ns(), text))

    def event(self, event: object) -> None:
        return None


def main() -> int:
    read_fd, write_fd = take_over_stdio()
    home = Path(os.environ["HERMES_HOME"])
    adapter = HermesAdapter(home)
    session = Session("sess_bench_inproc", "default")
    sink = _Sink()
    agent = adapter.build(session, sink)
    out = os.fdopen(write_fd, "w", encoding="utf-8")
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    with os.fdopen(read_fd, "r", encoding="utf-8") as inp:
        for line in inp:
            cmd = json.loads(line)
            sink.deltas = []
            session.history = []
            error = None
            try:
                outcome = adapter.run_turn(agent, session, str(cmd["message"]), lambda: False)
                error = outcome.error
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
            release_free_memory()
            out.write(json.dumps({"deltas": sink.deltas, "error": error}) + "\n")
            out.flush()
    adapter.close(agent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
