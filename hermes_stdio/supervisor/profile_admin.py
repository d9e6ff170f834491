"""``profile/create``, ``profile/rename``, ``profile/delete``, ``profile/export``
and ``profile/import``: hermes' own code, run in a child process.

Contract: ``make_profile(python, home, base_env, name, clone_from, no_skills,
description)``, ``rename_profile(python, home, base_env, name, new_name)``,
``delete_profile(python, home, base_env, name)``, ``export_profile(python,
home, base_env, name, path)`` and ``import_profile(python, home, base_env,
path, name)`` run
``worker.profile_admin`` with ``python`` (the workers' interpreter; the
supervisor never imports hermes-agent) in a session of its own, stdin from
/dev/null, ``HERMES_HOME`` the Hermes root and no profile's secrets
(``template_env``: a clone copies the source's ``.env`` as a file, never
through an environment), lazy installs off; its stderr goes to ours. Each
waits at most ``TIMEOUT_S``, then kills the child's group. Each returns the
profile's directory (export: the archive), or raises: ``profile_exists``
(``data.profile``), ``unknown_profile`` (nothing to rename, delete or
export), ``invalid_profile`` for a name or source hermes refuses,
``invalid_params`` naming ``params.path`` for an archive hermes would not
unpack or one that could not be written, ``agent_unavailable`` without hermes-agent,
``internal_error`` for anything else (a directory that could not be moved
or removed, a crash, a timeout, an answer that is not one).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

from ..transport.log import log, log_bytes
from ..transport.process import UTF8_ENV
from ..wire import ErrorType, RpcError
from .launch import python_command
from .profiles import template_env

TIMEOUT_S = 120.0  # hermes copies or removes a profile: seconds at most, even on a slow disk


def make_profile(
    python: str,
    home: Path,
    base_env: dict[str, str],
    name: str,
    clone_from: str | None,
    no_skills: bool,
    description: str | None,
) -> Path:
    # Each value joined to its option: argparse would take a description such as
    # "-rf" for an option of its own.
    args = ["create", f"--name={name}"]
    if clone_from is not None:
        args.append(f"--clone-from={clone_from}")
    if no_skills:
        args.append("--no-skills")
    if description is not None:
        args.append(f"--description={description}")
    return _run(python, home, base_env, name, args)


def rename_profile(
    python: str, home: Path, base_env: dict[str, str], name: str, new_name: str
) -> Path:
    args = ["rename", f"--name={name}", f"--new-name={new_name}"]
    return _run(python, home, base_env, name, args, taken=new_name)


def delete_profile(python: str, home: Path, base_env: dict[str, str], name: str) -> Path:
    return _run(python, home, base_env, name, ["delete", f"--name={name}"])


def export_profile(python: str, home: Path, base_env: dict[str, str], name: str, path: str) -> Path:
    return _run(python, home, base_env, name, ["export", f"--name={name}", f"--path={path}"])


def import_profile(
    python: str, home: Path, base_env: dict[str, str], path: str, name: str | None
) -> Path:
    args = ["import", f"--path={path}", *([f"--name={name}"] if name is not None else [])]
    return _run(python, home, base_env, name or "", args)


def _run(
    python: str,
    home: Path,
    base_env: dict[str, str],
    name: str,
    args: list[str],
    taken: str | None = None,  # the name profile_exists is about, when not ``name``
) -> Path:
    import subprocess  # here: the supervisor answers initialize without it

    env = {
        **template_env(home, base_env),
        "HERMES_HOME": str(home),
        "HERMES_DISABLE_LAZY_INSTALLS": "1",
        **UTF8_ENV,
    }
    proc = subprocess.Popen(
        python_command(python, "hermes_stdio.worker.profile_admin", args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=str(home),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RpcError(
            ErrorType.INTERNAL_ERROR, f"profile/{args[0]} {name!r} took over {TIMEOUT_S:g} s"
        ) from None
    for line in err.splitlines(keepends=True):
        log_bytes(f"[profile/{args[0]}] ".encode() + line)
    return _answer(name, proc.returncode, out, taken or name)


def _answer(name: str, code: int, out: bytes, taken: str) -> Path:
    try:
        answer = json.loads(out.strip().splitlines()[-1])
        if not isinstance(answer, dict):
            raise ValueError(answer)
    except (ValueError, IndexError):
        log(f"hermes-stdio: a profile child exited {code} without an answer")
        raise RpcError(ErrorType.INTERNAL_ERROR) from None
    error, message = answer.get("error"), str(answer.get("message", ""))
    if isinstance(answer.get("name"), str):  # the name an archive gave
        name = taken = answer["name"]
    if error in ("bad_archive", "unwritable"):
        raise RpcError(ErrorType.INVALID_PARAMS, message, field="params.path")
    if error == "exists":
        raise RpcError(ErrorType.PROFILE_EXISTS, message, profile=taken)
    if error == "missing":
        raise RpcError(ErrorType.UNKNOWN_PROFILE, message, profile=name)
    if error == "invalid":
        raise RpcError(ErrorType.INVALID_PROFILE, message, profile=name)
    if error == "unavailable":
        raise RpcError(ErrorType.AGENT_UNAVAILABLE, message)
    if error is not None or not isinstance(answer.get("home"), str):
        log(f"hermes-stdio: a profile child answered {answer!r}")
        raise RpcError(ErrorType.INTERNAL_ERROR)
    if answer.get("seeded") is False:
        log(f"hermes-stdio: profile {name!r} was made, but hermes' bundled skills were not copied")
    return Path(answer["home"])
