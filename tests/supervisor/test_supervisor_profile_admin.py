"""profile_admin: the supervisor's side of profile/create, rename and delete, with stand-in children
for what the real one (tests/e2e/test_profiles_admin.py) never does."""

from __future__ import annotations

import os
import select
from pathlib import Path

import pytest

from hermes_stdio.supervisor import profile_admin
from hermes_stdio.supervisor.profile_admin import delete_profile, make_profile, rename_profile
from hermes_stdio.wire import ErrorType, RpcError


def child(tmp_path: Path, script: str) -> str:
    """A stand-in for the workers' Python that runs ``script`` whatever it is given."""
    path = tmp_path / "fake-python"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return str(path)


def made(python: str, tmp_path: Path) -> Path:
    return make_profile(python, tmp_path, dict(os.environ), "kiwi", None, False, None)


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ('{"error": "exists", "message": "taken"}', ErrorType.PROFILE_EXISTS),
        ('{"error": "invalid", "message": "reserved"}', ErrorType.INVALID_PROFILE),
        ('{"error": "missing", "message": "gone"}', ErrorType.UNKNOWN_PROFILE),
        ('{"error": "failed", "message": "EACCES"}', ErrorType.INTERNAL_ERROR),
        ('{"error": "unavailable", "message": "no hermes"}', ErrorType.AGENT_UNAVAILABLE),
        ('{"error": "odd"}', ErrorType.INTERNAL_ERROR),
        ('{"home": 3}', ErrorType.INTERNAL_ERROR),
        ("not json", ErrorType.INTERNAL_ERROR),
        ("", ErrorType.INTERNAL_ERROR),
        ("[1]", ErrorType.INTERNAL_ERROR),
    ],
)
def test_each_answer_of_the_child_maps_to_one_error(
    tmp_path: Path, answer: str, kind: ErrorType
) -> None:
    with pytest.raises(RpcError) as err:
        made(child(tmp_path, f"echo 'printed by hermes'; echo '{answer}'"), tmp_path)
    assert err.value.kind is kind


def test_the_childs_home_is_returned_and_its_stderr_is_relayed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    python = child(tmp_path, 'echo "a warning" >&2; echo \'{"home": "/h/kiwi", "seeded": false}\'')
    assert made(python, tmp_path) == Path("/h/kiwi")
    err = capfd.readouterr().err
    assert "[profile/create] a warning" in err and "bundled skills were not copied" in err


def test_a_child_past_the_timeout_is_killed_with_its_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(profile_admin, "TIMEOUT_S", 0.3)
    pid_file = tmp_path / "grandchild"
    python = child(tmp_path, f"sleep 30 & echo $! > {pid_file}; wait")
    with pytest.raises(RpcError) as err:
        made(python, tmp_path)
    assert err.value.kind is ErrorType.INTERNAL_ERROR
    try:
        exited = os.pidfd_open(int(pid_file.read_text()))
    except ProcessLookupError:
        return  # gone and reaped already
    try:
        assert select.select([exited], [], [], 10)[0], "the child's own child outlived it"
    finally:
        os.close(exited)


def test_the_child_gets_no_profiles_secrets_and_the_root_as_its_home(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ROOT_SECRET=s\n")
    out = tmp_path / "env"
    python = child(tmp_path, f'env > {out}; echo \'{{"home": "/h"}}\'')
    base = {**os.environ, "ROOT_SECRET": "s", "HERMES_HOME": "/elsewhere"}
    make_profile(python, tmp_path, base, "kiwi", None, False, None)
    seen = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    assert "ROOT_SECRET" not in seen
    assert seen["HERMES_HOME"] == str(tmp_path)
    assert seen["HERMES_DISABLE_LAZY_INSTALLS"] == "1"


def test_delete_asks_the_child_to_delete_the_named_profile(tmp_path: Path) -> None:
    out = tmp_path / "argv"
    python = child(tmp_path, f'echo "$@" > {out}; echo \'{{"home": "/h/kiwi"}}\'')
    assert delete_profile(python, tmp_path, dict(os.environ), "kiwi") == Path("/h/kiwi")
    assert out.read_text().split()[-2:] == ["delete", "--name=kiwi"]


def test_rename_asks_the_child_to_rename_and_a_taken_name_is_the_new_one(tmp_path: Path) -> None:
    out = tmp_path / "argv"
    python = child(tmp_path, f'echo "$@" > {out}; echo \'{{"home": "/h/job"}}\'')
    assert rename_profile(python, tmp_path, dict(os.environ), "work", "job") == Path("/h/job")
    assert out.read_text().split()[-3:] == ["rename", "--name=work", "--new-name=job"]
    taken = child(tmp_path, """echo '{"error": "exists", "message": "taken"}'""")
    with pytest.raises(RpcError) as err:
        rename_profile(taken, tmp_path, dict(os.environ), "work", "job")
    assert err.value.kind is ErrorType.PROFILE_EXISTS
    assert err.value.data["profile"] == "job"
