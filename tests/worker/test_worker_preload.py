"""The template's preload list: what hermes-agent imports that is safe to share between workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def last_json_line(script: str, env: dict[str, str] | None = None) -> Any:
    """What ``script``, run in a fresh interpreter, printed last (as JSON)."""
    out = subprocess.run(
        [sys.executable, "-P", "-c", script], capture_output=True, text=True, cwd="/", env=env
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_every_module_in_the_shipped_list_is_safe_to_share_and_reads_nothing_per_worker() -> None:
    # What the generator checked, against what is installed now: a stale list fails here.
    assert last_json_line(_AUDIT_LIST) == {}


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


_FIRST_TURN_PATTERNS = r"""
import json, re, sys
from hermes_stdio.worker import preload
from hermes_stdio.worker.template import _compile_ahead
_compile_ahead()
hits = []
compile_ = re._compile
def watching(pattern, flags):
    hits.append((type(pattern), pattern, flags) in re._cache)
    return compile_(pattern, flags)
re._compile = watching
import run_agent  # the modules a worker imports itself, and their patterns
print(json.dumps([len(hits), hits.count(False)]))
"""


def test_the_shipped_patterns_are_what_the_workers_own_imports_compile(tmp_path: Path) -> None:
    # Against what is installed now: with the list compiled first, hermes' own
    # imports find (almost) every pattern already in re's cache.
    env = {"HERMES_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    calls, misses = last_json_line(_FIRST_TURN_PATTERNS, env)
    assert calls > 500 and misses <= calls // 50, (calls, misses)


def test_patterns_are_read_as_pattern_and_flags_and_a_bad_file_gives_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "preload_patterns.json"
    table.write_text(json.dumps({"patterns": [["a+b", 2], ["^x$", 0]]}))
    monkeypatch.setattr(preload, "PATTERNS", table)
    assert preload.patterns() == [("a+b", 2), ("^x$", 0)]
    table.write_text("{not json")
    assert preload.patterns() == []
    monkeypatch.setattr(preload, "PATTERNS", tmp_path / "absent.json")
    assert preload.patterns() == []


def test_compiling_ahead_skips_a_pattern_this_python_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_stdio.worker.template import _compile_ahead

    table = tmp_path / "preload_patterns.json"
    table.write_text(json.dumps({"patterns": [["(unclosed", 0], ["ok[0-9]+", 0]]}))
    monkeypatch.setattr(preload, "PATTERNS", table)
    assert _compile_ahead() == 1
