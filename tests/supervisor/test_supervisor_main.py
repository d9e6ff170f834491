"""supervisor.main: what the supervisor loads before it can answer ``initialize``."""

from __future__ import annotations

import subprocess
import sys

SPAWN_TIMEOUT = 60.0

# Loaded where first used, after the answer: the host waits on initialize, not on these.
DEFERRED = ("run_agent", "yaml", "dotenv", "orjson", "socket", "subprocess", "traceback", "uuid")


def test_importing_the_supervisor_loads_none_of_what_it_needs_only_after_initialize() -> None:
    probe = (
        "import sys\n"
        "import hermes_stdio.cli, hermes_stdio.supervisor.main\n"
        f"print(' '.join(m for m in {DEFERRED!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=SPAWN_TIMEOUT,
    )
    assert out.stdout.split() == []
