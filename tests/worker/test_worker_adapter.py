"""The real hermes-agent adapter, in a child process (importing hermes changes
process-wide state)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hermes_stdio.testing.home import make_home, offline_env

_PROBE = """
import json, sys
from pathlib import Path
from hermes_stdio.worker.adapter import HermesAdapter
HermesAdapter(Path(sys.argv[1])).preload()
mods = list(sys.modules)
print(json.dumps({"run_agent": mods.index("run_agent") if "run_agent" in mods else None,
                  "openai": mods.index("openai") if "openai" in mods else None}))
"""


def test_preload_imports_hermes_then_the_openai_package_its_first_agent_build_needs(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(home)],
        env=offline_env(home, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    order = json.loads(out.stdout.strip().splitlines()[-1])
    # openai after run_agent: hermes has loaded the profile's .env by the time it imports.
    assert order["run_agent"] is not None and order["openai"] is not None
    assert order["openai"] > order["run_agent"]
