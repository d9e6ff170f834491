"""``python -P -m hermes_stdio.worker``: one profile's worker process.

Contract: takes stdio over first (fd 1 -> stderr, so hermes' prints never
reach the wire), announces itself with ``worker/ready``, then warms
hermes-agent up in the background (``warm_up``: imported, then the heap frozen
out of the cycle collector's sight, ``freeze_heap``, then what a first agent build
pays once paid ahead, ``warm_build``) and serves the supervisor until
``worker/shutdown`` or EOF on stdin (the supervisor is gone), after which
runs are interrupted (bounded), the profile's MCP servers are closed and
hermes' exit handlers run (together bounded, ``_release``), and the process
exits. A fatal error (a crash in C code) writes each thread's stack to
stderr (``faulthandler``), which the supervisor logs. Its MCP servers start
connecting once hermes-agent is imported with the profile's final
environment.

``main_forked`` is the same worker started by a fork of the worker template
(``worker.template``). It imports hermes-agent before announcing itself,
because only then has hermes loaded the profile's ``.env``; if any variable
the template's preloaded modules read now differs, it replaces itself with a
cold worker (same pid and pipes, nothing sent yet) that reports why in
``worker/ready``. Its imports use the code the template read ahead
(``codecache``) for the files unchanged since. The hermes-agent files the
template loaded count as loaded by the worker (``runtime_changed``).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import faulthandler
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..protocol import PROTOCOL_VERSION, encode
from ..protocol import workers as pw
from ..transport import Peer, take_over_stdio
from ..transport.log import log
from ..transport.process import WORKER_TAG, kill_tagged
from ..wire import DEFAULT_MAX_BODY_BYTES, load_fast
from . import codecache, own_credentials
from .adapter import HermesAdapter
from .audit import ImportAudit
from .codecache import Codes
from .contract import AgentAdapter, AgentUnavailable
from .runtime import Fingerprint
from .service import WorkerService

# Inside the 5 s the supervisor waits for a worker to exit once it has answered
# worker/shutdown, before it signals the process group.
EXIT_BUDGET_S = 4.0
# A run notification within 1 ms of the last write waits for that millisecond to
# pass, merging later deltas: a fast stream costs one write (and one wake-up of
# the supervisor) per 1 to 6 ms rather than per delta (6 when the agent's thread
# keeps the timer's from running: see transport.writer). Slower streams, which
# is every model a human reads, are written at once.
DELTA_LINGER_S = 0.001
MCP_CLOSE_S = 2.5


def _release(
    adapter: AgentAdapter, exit_handlers: Callable[[], None] = atexit._run_exitfuncs
) -> None:
    """Close the profile's MCP servers and run the exit handlers hermes registered
    (sandbox, browser and language-server teardown), side by side and bounded:
    the worker ends with ``os._exit``, because a normal interpreter exit would wait
    for threads nobody can stop, and that skips ``atexit``."""
    deadline = time.monotonic() + EXIT_BUDGET_S
    jobs = [
        threading.Thread(target=adapter.shutdown, args=(MCP_CLOSE_S,), name="mcp-close"),
        threading.Thread(target=exit_handlers, name="atexit"),
    ]
    for job in jobs:
        job.daemon = True
        job.start()
    for job in jobs:
        job.join(max(0.0, deadline - time.monotonic()))


def freeze_heap() -> None:
    """Take what is alive now (hermes-agent, once imported) out of the cycle
    collector's sight. A full collection otherwise walks it all, about 125,000
    objects: 80 to 100 ms here with the interpreter lock held, a stall in whatever
    run streams then; frozen, one walks only what sessions added (5 ms with six
    loaded). A forked worker's template froze its own imports; this takes the
    profile's. Only the young generations are collected first (an import phase's
    full collections just ran): cyclic garbage older than that, and what a session
    built meanwhile, is never collected, a bounded cost paid once per worker."""
    gc.collect(1)
    gc.freeze()


def warm_up(adapter: AgentAdapter, freeze: Callable[[], None] = freeze_heap) -> None:
    """Import hermes-agent ahead of the first run (a forked worker already has),
    freeze the heap, connect the profile's MCP servers, then pay what a first agent
    build pays once (``warm_build``)."""
    load_fast()  # forked: the template's already
    adapter.preload()
    freeze()
    with contextlib.suppress(AgentUnavailable):  # reported when a request needs it
        adapter.connect_mcp()  # the environment is final by now
    adapter.warm_build()


def _parse(argv: list[str] | None) -> argparse.Namespace:
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
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=1800.0,
        help="unload a session that nothing used for this many seconds (0: never)",
    )
    parser.add_argument(
        "--fork-fallback", default=None, help="set by a forked worker that fell back to this"
    )
    return parser.parse_args(argv)


def _adapter(args: argparse.Namespace) -> AgentAdapter:
    if args.synthetic_agent:
        from .synthetic import SyntheticAdapter

        return SyntheticAdapter()
    own_credentials.install()  # before hermes reads any credential
    return HermesAdapter(Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes"))


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    read_fd, write_fd = take_over_stdio()
    faulthandler.enable()  # a crash in C code leaves every thread's stack on stderr
    adapter = _adapter(args)
    return _serve(args, adapter, read_fd, write_fd, "spawned", preload=not args.no_preload)


def main_forked(
    options: list[str],
    audit: ImportAudit,
    cold_argv: list[str],
    env: dict[str, str],
    preloaded: Fingerprint,
    codes: Codes | None = None,
) -> int:
    args = _parse(options)
    read_fd, write_fd = take_over_stdio()
    faulthandler.enable()
    adapter = _adapter(args)
    if not args.synthetic_agent:
        adapter.watch_loaded(preloaded)
        with codecache.use(codes or {}):
            adapter.preload()
        differ = audit.mismatches(os.environ)
        if differ:
            reason = (
                "the profile changes environment variables that preloaded modules read: "
                + ", ".join(differ)
            )
            log(f"worker (forked): {reason}; restarting cold")
            os.dup2(read_fd, 0)
            os.dup2(write_fd, 1)
            os.execve(cold_argv[0], [*cold_argv, "--fork-fallback", reason], env)
    # (already imported: warming up is only connecting its MCP servers)
    return _serve(args, adapter, read_fd, write_fd, "forked", preload=not args.no_preload)


def _serve(
    args: argparse.Namespace,
    adapter: AgentAdapter,
    read_fd: int,
    write_fd: int,
    start_mode: pw.StartMode,
    *,
    preload: bool,
) -> int:
    service = WorkerService(args.profile, adapter, session_idle_s=args.session_idle_timeout)
    peer = Peer(
        "supervisor",
        read_fd,
        write_fd,
        service,
        max_body_bytes=args.max_body_bytes,
        answer_invalid=True,
        handoff=True,  # our own pipe: a lagging supervisor never blocks the agent's thread
        linger_s=DELTA_LINGER_S,
        answer_limit=args.max_body_bytes,  # the supervisor reads us with the same limit
    )
    service.attach(peer)
    peer.start()
    ready = pw.WorkerReadyNotification(
        PROTOCOL_VERSION,
        os.getpid(),
        args.profile,
        sys.executable,
        start_mode=start_mode,
        fork_fallback=args.fork_fallback,
    )
    peer.notify("worker/ready", encode(ready))

    if preload:
        threading.Thread(
            target=warm_up, args=(service.adapter,), name="preload", daemon=True
        ).start()
    else:
        load_fast()
    while not service.done.wait(3600):
        pass
    peer.writer.wait_idle(5.0)
    _release(service.adapter)
    token = os.environ.get(WORKER_TAG)
    if token:  # background tool commands must not outlive their worker
        kill_tagged(token)
    log(f"worker: pid {os.getpid()} exiting: {service.exit_reason}")
    peer.writer.wait_idle(1.0)  # a run that ended meanwhile: its last notifications linger
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
