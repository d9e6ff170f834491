"""``hermes-stdio demo``: one host session, end to end, with no network.

Contract: starts the project's scripted LLM on 127.0.0.1, writes a throwaway
Hermes home pointed at it, spawns the real supervisor as a host would, runs
one streamed turn through a real hermes-agent worker and prints what the host
sees (each delta as it arrives), then shuts everything down. Exit code 0 when
the run completed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from .testing.home import make_home, offline_env
from .testing.host import HostClient
from .testing.llm_server import Reply, ScriptedLLM


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="hermes-stdio demo")
    parser.add_argument("--message", default="Say hello from hermes-stdio.")
    args = parser.parse_args(argv)
    out = sys.stdout
    with ScriptedLLM() as llm, tempfile.TemporaryDirectory() as tmp:
        home = make_home(Path(tmp), llm.base_url)
        words = [
            "Hello",
            "from",
            "a",
            "real",
            "hermes-agent,",
            "streamed",
            "over",
            "stdio",
            "JSON-RPC.",
        ]
        llm.enqueue(Reply.text([w + " " for w in words], delay=0.05))
        started = time.monotonic()
        with HostClient(
            [], offline_env(home), command=[sys.executable, "-m", "hermes_stdio"]
        ) as host:
            info = host.initialize()
            out.write(f"initialized {info['serverInfo']} in {time.monotonic() - started:.2f}s\n")
            run = host.request("run/start", {"message": args.message, "source": "demo"})
            out.write(f"run/start -> {run}\n")
            while True:
                note = host.wait_for(lambda n: n.params.get("runId") == run["runId"], timeout=120)
                if note.method == "run/delta":
                    out.write(note.params["text"])
                    out.flush()
                elif note.method == "run/completed":
                    out.write(
                        f"\nrun/completed status={note.params['status']} "
                        f"seq={note.params['seq']} error={note.params['error']}\n"
                    )
                    break
            status = host.request("supervisor/status")
            out.write(
                f"workers: {[(w['profile'], w['pid'], w['state']) for w in status['workers']]}\n"
            )
            host.request("shutdown")
            host.notify("exit")
            code = host.proc.wait(30)
            out.write(f"supervisor exited with {code}\n")
        return 0 if note.params["status"] == "complete" and code == 0 else 1
