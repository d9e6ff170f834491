"""``python -m hermes_stdio.worker``: one profile's worker process.

Contract: takes stdio over first (fd 1 -> stderr, so hermes' prints never
reach the wire), announces itself with ``worker/ready``, then warms
hermes-agent up in the background and serves the supervisor until
``worker/shutdown`` or EOF on stdin (the supervisor is gone), after which
runs are interrupted (bounded) and the process exits.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path

from ..protocol import PROTOCOL_VERSION, encode
from ..protocol import types as t
from ..transport import Peer, take_over_stdio
from ..transport.process import WORKER_TAG, kill_tagged
from ..wire import DEFAULT_MAX_BODY_BYTES
from .adapter import AgentAdapter, HermesAdapter
from .service import WorkerService


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hermes_stdio.worker")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--worker-key", default=None)
    parser.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES)
    parser.add_argument(
        "--no-preload", action="store_true", help="import hermes-agent on first use"
    )
    parser.add_argument(
        "--synthetic-agent", action="store_true", help="benchmarks only: a scripted stand-in agent"
    )
    args = parser.parse_args(argv)

    read_fd, write_fd = take_over_stdio()
    home = Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")
    adapter: AgentAdapter
    if args.synthetic_agent:
        from .synthetic import SyntheticAdapter

        adapter = SyntheticAdapter()
    else:
        adapter = HermesAdapter(home)
    service = WorkerService(args.profile, adapter)
    peer = Peer(
        "supervisor",
        read_fd,
        write_fd,
        service,
        max_body_bytes=args.max_body_bytes,
        answer_invalid=True,
        handoff=True,  # our own pipe: a lagging supervisor never blocks the agent's thread
    )
    service.attach(peer)
    peer.start()
    ready = t.WorkerReadyNotification(PROTOCOL_VERSION, os.getpid(), args.profile, sys.executable)
    peer.notify("worker/ready", encode(ready))
    if not args.no_preload:
        threading.Thread(target=service.adapter.preload, name="preload", daemon=True).start()
    while not service.done.wait(3600):
        pass
    peer.writer.wait_idle(5.0)
    token = os.environ.get(WORKER_TAG)
    if token:  # background tool commands must not outlive their worker
        kill_tagged(token)
    print(f"worker: pid {os.getpid()} exiting: {service.exit_reason}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
