"""``hermes-stdio``: the command line.

``hermes-stdio`` (or ``hermes-stdio serve``) runs the supervisor on stdio.
``hermes-stdio schema`` prints the protocol's JSON Schema (``--write``
refreshes the checked-in copy). ``hermes-stdio demo`` runs one offline host
session. ``hermes-stdio bench`` runs the benchmarks.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .wire import DEFAULT_MAX_BODY_BYTES, link_body_limit


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hermes-stdio", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"hermes-stdio {__version__}")
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the supervisor on stdin/stdout (the default)")
    for p in (parser, serve):
        p.add_argument(
            "--hermes-home", default=None, help="Hermes home (default: $HERMES_HOME or ~/.hermes)"
        )
        p.add_argument(
            "--agent-python", default=None, help="Python that runs workers (has hermes-agent)"
        )
        p.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES)
        p.add_argument("--worker-ready-timeout", type=float, default=20.0)
        p.add_argument(
            "--no-worker-template",
            action="store_true",
            help="spawn every worker cold instead of forking it from a pre-imported template",
        )
        p.add_argument(
            "--worker-idle-timeout",
            type=float,
            default=1800.0,
            metavar="SECONDS",
            help="stop a worker with no run that nothing has used for this long (0: never)",
        )
        p.add_argument(
            "--max-workers",
            type=int,
            default=16,
            metavar="N",
            help="at most this many workers at once; the least recently used free one is"
            " stopped to start another (0: no limit)",
        )
        p.add_argument(
            "--session-idle-timeout",
            type=float,
            default=1800.0,
            metavar="SECONDS",
            help="unload a session (its agent) that nothing has used for this long (0: never)",
        )
        p.add_argument(
            "--synthetic-agent",
            action="store_true",
            help="benchmarks only: workers run a synthetic agent instead of hermes-agent",
        )
    schema = sub.add_parser("schema", help="print the protocol JSON Schema")
    schema.add_argument("--write", action="store_true", help="rewrite the checked-in schema.json")
    demo = sub.add_parser("demo", help="one offline host session against a scripted model")
    demo.add_argument("rest", nargs=argparse.REMAINDER)
    bench = sub.add_parser("bench", help="run the benchmarks (see README)")
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # These subcommands own their options; argparse's REMAINDER would drop "--flags".
    if argv[:1] == ["bench"]:
        from .bench import main as bench_main

        return bench_main(argv[1:])
    if argv[:1] == ["demo"]:
        from .demo import main as demo_main

        return demo_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from .protocol.schema import SCHEMA_PATH, render_schema

        text = render_schema()
        if args.write:
            SCHEMA_PATH.write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    from .supervisor.main import serve

    link_limit = link_body_limit(args.max_body_bytes)
    worker_args = (
        [] if link_limit == DEFAULT_MAX_BODY_BYTES else ["--max-body-bytes", str(link_limit)]
    )
    if args.synthetic_agent:
        worker_args.append("--synthetic-agent")
    worker_args += ["--session-idle-timeout", str(args.session_idle_timeout)]
    return serve(
        hermes_home=args.hermes_home,
        agent_python=args.agent_python,
        max_body_bytes=args.max_body_bytes,
        worker_args=worker_args,
        ready_timeout=args.worker_ready_timeout,
        worker_template=not args.no_worker_template,
        worker_idle_s=args.worker_idle_timeout,
        max_workers=args.max_workers,
    )
