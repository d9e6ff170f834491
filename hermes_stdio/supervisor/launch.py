"""Which Python runs a worker, and with what command line.

Contract: ``find_agent_python`` picks, in order: ``--agent-python``,
``$HERMES_AGENT_PYTHON``, a venv inside ``$HERMES_AGENT_ROOT``, the Python
named by the shebang of the ``hermes`` executable on PATH, and finally the
supervisor's own interpreter (where the ``agent`` extra installs hermes-agent).
``worker_command`` and ``template_command`` build the argv, putting this
package on a foreign interpreter's path.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import hermes_stdio

PACKAGE_PARENT = str(Path(hermes_stdio.__file__).resolve().parent.parent)


def _venv_python(root: Path) -> str | None:
    for rel in ("venv/bin/python", ".venv/bin/python", "bin/python"):
        candidate = root / rel
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _shebang_python(executable: str, path: str | None) -> str | None:
    try:
        with open(executable, "rb") as f:
            first = f.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode(errors="replace").split()
    if not parts:
        return None
    if parts[0].endswith("/env") and len(parts) > 1:
        return shutil.which(parts[1], path=path)
    return parts[0] if "python" in Path(parts[0]).name else None


def find_agent_python(cli_value: str | None, environ: dict[str, str]) -> str:
    if cli_value:
        return cli_value
    if environ.get("HERMES_AGENT_PYTHON"):
        return environ["HERMES_AGENT_PYTHON"]
    root = environ.get("HERMES_AGENT_ROOT")
    if root and (found := _venv_python(Path(root).expanduser())):
        return found
    hermes = shutil.which("hermes", path=environ.get("PATH"))
    if (
        hermes
        and (found := _shebang_python(hermes, environ.get("PATH")))
        and Path(found).resolve() != Path(sys.executable).resolve()
    ):
        return found
    return sys.executable


def python_command(python: str, module: str, args: list[str]) -> list[str]:
    """argv running ``module``'s ``main()``. A foreign interpreter gets this package
    appended to its path, after its own entries, so its own hermes-agent and
    dependencies still win. ``-P``: the working directory (a profile's home) is
    never on the import path."""
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return [python, "-P", "-m", module, *args]
    boot = (
        f"import sys; sys.path.append(sys.argv.pop(1)); from {module} import main; sys.exit(main())"
    )
    return [python, "-P", "-c", boot, PACKAGE_PARENT, *args]


def worker_options(profile: str, extra: list[str]) -> list[str]:
    return ["--profile", profile, *extra]


def worker_command(python: str, profile: str, extra: list[str]) -> list[str]:
    return python_command(python, "hermes_stdio.worker.main", worker_options(profile, extra))


def template_command(python: str, fd: int) -> list[str]:
    return python_command(python, "hermes_stdio.worker.template", ["--fd", str(fd)])
