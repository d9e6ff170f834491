"""profile/list through the real binary: the profiles a host can name, read from disk,
with their models and live workers, and no worker started to list them."""

from __future__ import annotations

import os
from pathlib import Path

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import ScriptedLLM

from .conftest import started_worker


def test_profile_list_names_every_profile_a_request_may_name_without_starting_a_worker(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    (home / "profiles" / "work" / "profile.yaml").write_text("description: Day job\n")
    (home / "profiles" / "Not-Valid").mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", home / "profiles" / "escape")
    listed = host.request("profile/list")["profiles"]
    assert listed == [
        {
            "name": name,
            "home": str(path),
            "model": "test-model",
            "provider": "custom",
            "description": "Day job" if name == "work" else "",
            "workers": 0,
        }
        for name, path in [
            ("default", home),
            ("play", home / "profiles" / "play"),
            ("work", home / "profiles" / "work"),
        ]
    ]
    assert host.request("supervisor/status")["workers"] == []


def test_profile_list_counts_a_profiles_running_workers(host: HostClient, llm: ScriptedLLM) -> None:
    started_worker(host, llm, "play")
    counts = {p["name"]: p["workers"] for p in host.request("profile/list")["profiles"]}
    assert counts == {"default": 0, "play": 1, "work": 0}
