"""Running code against the real hermes-agent in a child process: importing hermes
changes process-wide state (its .env loaded, its caches), so the tests' own process
never does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hermes_stdio.testing.home import offline_env


def probe(home: Path, code: str) -> Any:
    """Run ``code`` in a child Python whose Hermes home is ``home`` (offline); the
    JSON its last line of output prints. The test fails if the child does."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
