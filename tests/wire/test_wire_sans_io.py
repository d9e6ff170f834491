"""The wire package is the sans-I/O core: bytes and objects in, bytes and objects out."""

from __future__ import annotations

import ast
from pathlib import Path

import hermes_stdio.wire

WIRE = Path(hermes_stdio.wire.__file__).parent
# What the core may import: pure computation, no fds, threads, processes or clocks.
PURE = {"__future__", "enum", "typing", "re", "json", "math", "orjson"}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_wire_module_imports_anything_that_does_io() -> None:
    modules = sorted(WIRE.glob("*.py"))
    assert len(modules) >= 4
    for path in modules:
        assert imported(path) <= PURE, path.name
