"""The README's first command: ``hermes-stdio demo`` runs one offline host session
end to end through the real binary, and says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BINARY = str(Path(sys.executable).with_name("hermes-stdio"))


def test_the_demo_shows_a_file_edit_and_a_streamed_reply_and_exits_cleanly() -> None:
    done = subprocess.run(
        [BINARY, "demo"], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "[tool.started] write_file NOTES.md" in out
    assert "--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1,3 @@\n+# Notes\n" in out
    assert "Hello from a real hermes-agent, streamed over stdio JSON-RPC." in out
    assert "run/completed status=complete" in out and "supervisor exited with 0" in out
