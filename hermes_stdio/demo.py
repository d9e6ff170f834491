"""``hermes-stdio demo``: one host session, end to end, with no network.

Contract: starts the project's scripted LLM on 127.0.0.1, writes a throwaway
Hermes home and workspace, spawns the real supervisor as a host would, and
runs one turn through a real hermes-agent worker: the agent writes a file
with its ``write_file`` tool (the host is shown the call and the diff of what
it changed), then streams its reply. It prints what the host sees (each delta
as it arrives), then shuts everything down. Exit code 0 when the run completed
and the supervisor exited cleanly.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from .testing.home import make_home, offline_env
from .testing.host import HostClient
from .testing.llm_server import Reply, ScriptedLLM

WORDS = ["Hello", "from", "a", "real", "hermes-agent,", "streamed", "over", "stdio", "JSON-RPC."]
NOTE = "# Notes\n\nWritten by the demo's agent through hermes-stdio.\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="hermes-stdio demo")
    parser.add_argument("--message", default="Say hello from hermes-stdio.")
    args = parser.parse_args(argv)
    out = sys.stdout
    with ScriptedLLM() as llm, tempfile.TemporaryDirectory() as tmp:
        home = make_home(Path(tmp), llm.base_url)
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        llm.enqueue(
            Reply.tool_call("write_file", {"path": "NOTES.md", "content": NOTE}),
            Reply.text([w + " " for w in WORDS], delay=0.05),
        )
        started = time.monotonic()
        with HostClient(
            [], offline_env(home), command=[sys.executable, "-m", "hermes_stdio"]
        ) as host:
            info = host.initialize()
            out.write(f"initialized {info['serverInfo']} in {time.monotonic() - started:.2f}s\n")
            params = {"message": args.message, "source": "demo", "workspace": str(workspace)}
            run = host.request("run/start", params)
            out.write(f"run/start -> {run}\n")
            while True:
                note = host.wait_for(lambda n: n.params.get("runId") == run["runId"], timeout=120)
                if note.method == "run/delta":
                    out.write(note.params["text"])
                    out.flush()
                elif note.method == "run/event":
                    show_event(out, note.params["event"])
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


def show_event(out: TextIO, event: dict[str, Any]) -> None:
    """A tool call as a host might show it: its start, then the files it changed."""
    if event["type"] == "tool.started":
        out.write(f"[tool.started] {event['name']} {event['args'].get('path', '')}\n")
    elif event["type"] == "tool.completed":
        failed = " (failed)" if event["isError"] else ""
        out.write(f"[tool.completed] {event['name']} in {event['durationMs']} ms{failed}\n")
        for edit in event["edits"]:
            out.write(f"  {edit['kind']} {edit['path']}\n{edit['diff'] or ''}")
