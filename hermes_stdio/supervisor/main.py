"""``hermes-stdio serve``: run the supervisor on this process's stdin/stdout.

Contract: takes stdio over first (nothing but the wire reaches fd 1), never
imports hermes-agent, serves until ``exit``, EOF on stdin, SIGTERM or SIGINT,
then stops every worker with bounded waits and exits with the lifecycle's
code, logging the reason on stderr.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType

from ..transport import Peer, take_over_stdio
from ..transport.log import log
from .launch import find_agent_python
from .profiles import resolve_home
from .server import Supervisor

HOST_QUEUE_BYTES = 1024 * 1024


def serve(
    *,
    hermes_home: str | None,
    agent_python: str | None,
    max_body_bytes: int,
    worker_args: list[str],
    ready_timeout: float,
    worker_template: bool = True,
    worker_idle_s: float = 1800.0,
    max_workers: int = 16,
) -> int:
    read_fd, write_fd = take_over_stdio()
    environ = dict(os.environ)
    home: Path = resolve_home(hermes_home, environ)
    supervisor = Supervisor(
        home,
        find_agent_python(agent_python, environ),
        max_body_bytes=max_body_bytes,
        base_env=environ,
        worker_args=worker_args,
        ready_timeout=ready_timeout,
        worker_template=worker_template,
        worker_idle_s=worker_idle_s,
        max_workers=max_workers,
    )
    # A small relay buffer: when the host stops reading, backpressure reaches the
    # workers soon, where consecutive deltas of a run coalesce before pausing the agent.
    host = Peer(
        "host",
        read_fd,
        write_fd,
        supervisor,
        max_body_bytes=max_body_bytes,
        max_pending_bytes=HOST_QUEUE_BYTES,
    )
    supervisor.attach(host)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        supervisor.finish(1, f"signal {signal.Signals(signum).name}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log(f"hermes-stdio: supervisor pid {os.getpid()} serving, home {home}")
    host.start()
    while not supervisor.exited.wait(3600):
        pass
    supervisor.pool.close()
    host.writer.wait_idle(5.0)
    code = supervisor.exit_code if supervisor.exit_code is not None else 1
    sys.stderr.flush()
    # Handler threads may still wait on workers that are gone; don't join them.
    os._exit(code)
