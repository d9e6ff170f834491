"""worker/profile_settings.py with the real hermes-agent, in a process of its own
(hermes keeps its config cache process-wide): a config/write is what hermes' next
load_config gives, even when the new file has the old one's size and time stamp
(two writes within one clock tick), which hermes' cache alone would miss; so is
what its skill scan reads of the disabled skills, which it caches the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import os
from hermes_stdio.worker.profile_settings import HermesSettings
from hermes_cli.config import load_config

class Settings(HermesSettings):
    def _modules(self):
        return None

config = Settings().config_file()
{probe}
"""

TURNS = """
config.write([(["agent", "max_turns"], 11)], None)
before = os.stat(config.path)
print(load_config()["agent"]["max_turns"])
config.write([(["agent", "max_turns"], 22)], None)
os.utime(config.path, ns=(before.st_atime_ns, before.st_mtime_ns))  # one clock tick
print(load_config()["agent"]["max_turns"])
"""

DISABLED = """
from agent.skill_utils import get_disabled_skill_names
config.write([(["skills", "disabled"], ["aa"])], None)
before = os.stat(config.path)
print(*get_disabled_skill_names("cli"))
config.write([(["skills", "disabled"], ["bb"])], None)
os.utime(config.path, ns=(before.st_atime_ns, before.st_mtime_ns))  # one clock tick
print(*get_disabled_skill_names("cli"))
"""


def probe(tmp_path: Path, steps: str) -> list[str]:
    home = tmp_path / "hermes"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(probe=steps)],
        env={**env, "HERMES_HOME": str(home), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.split()


def test_hermes_next_load_gives_what_was_written_within_one_clock_tick(tmp_path: Path) -> None:
    assert probe(tmp_path, TURNS) == ["11", "22"]


def test_hermes_skill_scan_reads_the_disabled_skills_written_within_one_clock_tick(
    tmp_path: Path,
) -> None:
    assert probe(tmp_path, DISABLED) == ["aa", "bb"]
