"""The modules a worker template imports before it forks workers.

Contract: ``modules()`` returns the list shipped in ``preload.txt``: the
modules hermes-agent imports while it starts, builds its first agent and
runs its first turn (standard library, third-party and hermes-agent's own)
whose import an ``ImportAudit`` finds safe to share between workers and that
read no variable set for each worker (``per_worker_reads``: its
``HERMES_HOME``, ``HERMES_STDIO_*``, ``HERMES_EXEC_ASK``...).
So none of hermes-agent's modules that read the profile's home or ``.env``
at import is in it. Each entry is one that is not already imported by an
earlier entry.

``patterns()`` returns the regular expressions (``[pattern, flags]``, str
patterns) shipped in ``preload_patterns.json``: what the modules a worker
imports itself, and its first turn, compile. The template compiles them
with ``re.compile`` so that they wait in ``re``'s cache, and a forked worker
compiling them again finds them there (a pure function of its arguments:
nothing of the environment or the profile goes into it).

``code_files()`` returns the hermes-agent source files (from
``preload_code.txt``, relative to the distribution's root) of the modules a
worker imports itself for its first turn: the template reads their code
ahead (``codecache``), and a forked worker uses it for the files unchanged
since.

``python -m hermes_stdio.worker.preload --write`` regenerates the three files
against the installed hermes-agent: it records what a real first turn
imports and compiles (against a ``ScriptedLLM``), drops every module whose
import is unsafe or reads a per-worker variable (again and again, as dropping one can
expose a later one that imported it), and minimises. The template audits
the list again every time it starts and a forked worker re-checks what it
read after hermes has loaded the profile's ``.env``, so a stale list costs
speed, never safety.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .audit import ImportAudit
from .runtime import top_level_names

LIST = Path(__file__).with_name("preload.txt")
PATTERNS = Path(__file__).with_name("preload_patterns.json")
CODE = Path(__file__).with_name("preload_code.txt")


def modules() -> list[str]:
    try:
        text = LIST.read_text(encoding="utf-8")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def patterns() -> list[tuple[str, int]]:
    try:
        data = json.loads(PATTERNS.read_text(encoding="utf-8"))
        return [(str(p), int(f)) for p, f in data["patterns"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _hermes_agent_root() -> Path | None:
    try:
        return Path(str(importlib.metadata.distribution("hermes-agent").locate_file("")))
    except importlib.metadata.PackageNotFoundError:
        return None


def code_files() -> list[str]:
    root = _hermes_agent_root()
    try:
        text = CODE.read_text(encoding="utf-8")
    except OSError:
        return []
    if root is None:
        return []
    return [
        str(root / line.strip()) for line in text.splitlines() if line.strip() and line[0] != "#"
    ]


def hermes_agent_packages() -> set[str]:
    """Top-level names installed by the hermes-agent distribution."""
    return top_level_names("hermes-agent")


# Set for each worker (by the supervisor, or by the worker before hermes is imported) and
# never in the template: a module whose import read one would differ in every fork.
PER_WORKER_KEYS = frozenset(
    {"HERMES_HOME", "HERMES_EXEC_ASK", "HERMES_INTERACTIVE", "HERMES_DISABLE_LAZY_INSTALLS"}
)
PER_WORKER_PREFIXES = ("HERMES_STDIO_",)


def per_worker_reads(audit: ImportAudit) -> list[str]:
    """What an import read that every worker sets for itself."""
    return [
        f"read {key}, which each worker sets"
        for key in sorted(audit.reads)
        if key in PER_WORKER_KEYS or key.startswith(PER_WORKER_PREFIXES)
    ]


# --- generation (development tool) ----------------------------------------------

_RECORD = r"""
import json, re, sys
order = []
class Recorder:
    def find_spec(self, name, path, target=None):
        order.append(name)
        return None
sys.meta_path.insert(0, Recorder())
compiled = {}
_compile = re._compile
def recording(pattern, flags):
    result = _compile(pattern, flags)  # raises for a bad pattern: not recorded
    if isinstance(pattern, str):
        compiled.setdefault((pattern, int(flags)), None)
    return result
re._compile = recording
from hermes_stdio.worker.preload import _first_turn
_first_turn()
re._compile = _compile
json.dump([m for m in dict.fromkeys(order) if m in sys.modules], open(sys.argv[1], "w"))
json.dump([list(k) for k in compiled], open(sys.argv[2], "w"))
from hermes_stdio.worker.preload import _hermes_agent_root
root = str(_hermes_agent_root()) + "/"
files = {
    name: path[len(root):]
    for name, m in list(sys.modules.items())
    if (path := getattr(m, "__file__", None) or "").startswith(root) and path.endswith(".py")
}
json.dump(files, open(sys.argv[3], "w"))
"""

_AUDIT = r"""
import importlib, json, sys
from hermes_stdio.worker.audit import ImportAudit
from hermes_stdio.worker.preload import per_worker_reads
bad = {}
for name in json.load(open(sys.argv[1])):
    audit = ImportAudit()
    audit.start()
    try:
        importlib.import_module(name)
    except Exception as exc:
        bad[name] = [f"import failed: {exc!r}"]
    audit.stop()
    if audit.problems() or per_worker_reads(audit):
        bad[name] = audit.problems() + per_worker_reads(audit)
json.dump(bad, open(sys.argv[2], "w"))
"""

_PRELOADED = r"""
import importlib, json, sys
for name in json.load(open(sys.argv[1])):
    importlib.import_module(name)
json.dump(sorted(sys.modules), open(sys.argv[1], "w"))
"""

_MINIMISE = r"""
import importlib, json, sys
keep = []
for name in json.load(open(sys.argv[1])):
    if name not in sys.modules:
        keep.append(name)
        importlib.import_module(name)
json.dump(keep, open(sys.argv[1], "w"))
"""


def _first_turn() -> None:
    """One real first turn in this process (the recording child)."""
    from ..testing.home import make_home, offline_env
    from ..testing.llm_server import Reply, ScriptedLLM
    from .adapter import HermesAdapter
    from .state import Session

    class Sink:
        def delta(self, text: str) -> None:
            pass

        def event(self, event: object) -> None:
            pass

    with ScriptedLLM() as llm, tempfile.TemporaryDirectory() as root:
        home = make_home(Path(root), llm.base_url)
        os.environ.update(offline_env(home))
        llm.enqueue(Reply.text("hello"))
        adapter = HermesAdapter(home)
        session = Session("sess_preload", "default")
        agent = adapter.build(session, Sink())
        adapter.run_turn(agent, session, "hi", lambda: False)
        adapter.close(agent)


def _child(script: str, *args: str) -> None:
    subprocess.run([sys.executable, "-P", "-c", script, *args], check=True, cwd="/")


def generate() -> tuple[list[str], list[list[object]], list[str]]:
    excluded = {"hermes_stdio", "__main__", "_distutils_hack"}
    with tempfile.TemporaryDirectory() as tmp:
        names_file, bad_file = f"{tmp}/names.json", f"{tmp}/bad.json"
        patterns_file, files_file = f"{tmp}/patterns.json", f"{tmp}/files.json"
        _child(_RECORD, names_file, patterns_file, files_file)
        compiled: list[list[object]] = json.loads(Path(patterns_file).read_text())
        files: dict[str, str] = json.loads(Path(files_file).read_text())
        names = [
            n
            for n in json.loads(Path(names_file).read_text())
            if n.split(".")[0] not in excluded
            and not n.startswith(("_sysconfigdata", "__editable__"))
        ]
        dropped: dict[str, list[str]] = {}
        while True:  # dropping a module can expose a later one that imported it
            Path(names_file).write_text(json.dumps(names))
            _child(_AUDIT, names_file, bad_file)
            bad = json.loads(Path(bad_file).read_text())
            if not bad:
                break
            dropped.update(bad)
            names = [n for n in names if n not in bad]
        _child(_MINIMISE, names_file)
        for name, why in sorted(dropped.items()):
            print(f"dropped {name}: {'; '.join(why)}", file=sys.stderr)
        result: list[str] = json.loads(Path(names_file).read_text())
        # What the template cannot import, the forked worker does: read its code ahead.
        # A module the listed ones import (not named in the list) is preloaded too.
        _child(_PRELOADED, names_file)
        preloaded = set(json.loads(Path(names_file).read_text()))
        own = sorted(path for name, path in files.items() if name not in preloaded)
        return result, compiled, own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hermes_stdio.worker.preload")
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"rewrite {LIST.name}, {PATTERNS.name} and {CODE.name}",
    )
    args = parser.parse_args(argv)
    names, compiled, own = generate()
    version = importlib.metadata.version("hermes-agent")
    header = [
        "# Generated by `python -m hermes_stdio.worker.preload --write`",
        f"# for hermes-agent {version} on Python {sys.version_info.major}."
        f"{sys.version_info.minor}: see preload.py.",
    ]
    text = "\n".join([*header, *names]) + "\n"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    rows = ",\n".join(json.dumps(row, ensure_ascii=False) for row in compiled)
    table = f'{{"hermesAgent": "{version}", "python": "{python}", "patterns": [\n{rows}\n]}}\n'
    if args.write:
        LIST.write_text(text, encoding="utf-8")
        PATTERNS.write_text(table, encoding="utf-8")
        CODE.write_text("\n".join([*header, *own]) + "\n", encoding="utf-8")
        print(f"wrote {len(own)} source files to {CODE}", file=sys.stderr)
        print(f"wrote {len(names)} modules to {LIST}", file=sys.stderr)
        print(f"wrote {len(compiled)} patterns to {PATTERNS}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
