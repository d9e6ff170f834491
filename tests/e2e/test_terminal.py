"""hermes-stdio started from a real terminal (a pty), as a person or a terminal UI would."""

from __future__ import annotations

import json
import termios
from pathlib import Path

import pexpect

from hermes_stdio.testing.home import offline_env
from hermes_stdio.wire import encode_frame

from .conftest import BINARY, wait_gone


def frame(msg: dict[str, object]) -> str:
    return encode_frame(json.dumps(msg).encode()).decode()


def test_ctrl_c_in_a_terminal_stops_the_supervisor_and_its_workers(home: Path) -> None:
    child = pexpect.spawn(BINARY, env=offline_env(home), encoding="utf-8", timeout=30)
    try:
        # A terminal's line discipline would buffer and rewrite the framing; keep only
        # its signal keys (ISIG), as a terminal UI that owns the pty does.
        attrs = termios.tcgetattr(child.child_fd)
        attrs[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON)
        attrs[1] &= ~termios.OPOST
        attrs[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
        termios.tcsetattr(child.child_fd, termios.TCSANOW, attrs)
        child.expect("serving")
        child.send(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"protocolVersion": 1},
                }
            )
        )
        child.expect('"protocolVersion":1')
        # Starting a worker through a session/status makes the worker exist without any LLM call.
        child.send(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "session/status",
                    "params": {"sessionId": "s"},
                }
            )
        )
        child.expect('"loaded":false')
        child.send(frame({"jsonrpc": "2.0", "id": 3, "method": "supervisor/status", "params": {}}))
        child.expect(r'"workers":\[\{"profile":"default","workerKey":null,"pid":(\d+)')
        worker_pid = int(child.match.group(1))
        child.sendintr()  # Ctrl-C: SIGINT to the terminal's foreground process group
        child.expect("signal SIGINT")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 1
        assert wait_gone(worker_pid, 10)
    finally:
        if child.isalive():
            child.terminate(force=True)
