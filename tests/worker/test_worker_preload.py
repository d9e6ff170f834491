"""The template's preload list: what hermes-agent imports that is safe to share between workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_stdio.worker import preload
from hermes_stdio.worker.audit import ImportAudit


def test_the_shipped_list_holds_no_module_of_ours_and_hermes_modules_that_read_no_home() -> None:
    names = preload.modules()
    hermes = preload.hermes_agent_packages()
    assert "run_agent" in hermes and "tools" in hermes  # the installed distribution was read
    tops = {name.split(".")[0] for name in names}
    assert "hermes_stdio" not in tops
    assert "openai" in tops  # the heaviest import hermes-agent makes for its first turn
    assert "tools.registry" in names  # hermes' own modules that read no home are in it...
    assert "run_agent" not in names  # ...and the one that loads the profile's .env is not


_AUDIT_LIST = r"""
import importlib, json, sys
from hermes_stdio.worker import preload
from hermes_stdio.worker.audit import ImportAudit
found = {}
for name in preload.modules():
    audit = ImportAudit()
    audit.start()
    importlib.import_module(name)
    audit.stop()
    if audit.problems() or preload.per_worker_reads(audit):
        found[name] = audit.problems() + preload.per_worker_reads(audit)
print(json.dumps(found))
"""


def test_every_module_in_the_shipped_list_is_safe_to_share_and_reads_nothing_per_worker() -> None:
    # What the generator checked, against what is installed now: a stale list fails here.
    out = subprocess.run(
        [sys.executable, "-P", "-c", _AUDIT_LIST],
        capture_output=True,
        text=True,
        cwd="/",
        check=True,
    )
    assert json.loads(out.stdout) == {}


def test_reads_of_a_variable_set_for_each_worker_are_named() -> None:
    audit = ImportAudit()
    audit.reads = {"HERMES_HOME": "/h", "HERMES_STDIO_PROFILE": "x", "OPENAI_LOG": None}
    assert preload.per_worker_reads(audit) == [
        "read HERMES_HOME, which each worker sets",
        "read HERMES_STDIO_PROFILE, which each worker sets",
    ]


def test_comments_and_blank_lines_in_the_list_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = tmp_path / "preload.txt"
    listing.write_text("# header\n\njson\n  yaml  \n# openai\n")
    monkeypatch.setattr(preload, "LIST", listing)
    assert preload.modules() == ["json", "yaml"]


def test_a_missing_list_preloads_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preload, "LIST", tmp_path / "absent.txt")
    assert preload.modules() == []
