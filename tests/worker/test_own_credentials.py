"""own_credentials: hermes' auth module, in a fresh process, reads and writes only the
profile's own credential store, whether it was imported before install() or after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = r"""
import inspect, json, sys
from hermes_stdio.worker import own_credentials
order = sys.argv[1]
if order == "install first":
    own_credentials.install()
import hermes_cli.auth as auth
if order == "import first":
    own_credentials.install()
from agent.credential_pool import load_pool
auth._write_shared_nous_state({"access_token": "work-token", "refresh_token": "work-refresh"})
print(json.dumps({
    "pool": auth.read_credential_pool("custom:kiwi"),
    "pooled": [e.access_token for e in load_pool("custom:kiwi").entries()],
    "nous": auth.get_provider_auth_state("nous"),
    "shared": auth._read_shared_nous_state(),
    "source": "def read_credential_pool" in inspect.getsource(auth),
}))
"""


def probe(tmp_path: Path, order: str) -> dict[str, object]:
    root = tmp_path / "hermes-home"
    work = root / "profiles" / "work"
    work.mkdir(parents=True)
    (work / "config.yaml").write_text("model: {provider: custom}\n")
    pool = [{"id": "abc123", "label": "root", "auth_type": "api_key", "priority": 0,
             "source": "manual", "access_token": "root-key"}]  # fmt: skip
    store = {"version": 1, "credential_pool": {"custom:kiwi": pool},
             "providers": {"nous": {"access_token": "root-nous"}}}  # fmt: skip
    (root / "auth.json").write_text(json.dumps(store))
    (root / "shared").mkdir()
    shared = root / "shared" / "nous_auth.json"
    shared.write_text(json.dumps({"access_token": "root-nous", "refresh_token": "root-refresh"}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES", "PYTEST"))}
    env |= {"HERMES_HOME": str(work), "HOME": str(tmp_path / "user-home")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, order],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    result["shared_after"] = json.loads(shared.read_text())["access_token"]
    return result


@pytest.mark.parametrize("order", ["install first", "import first"])
def test_a_named_profile_sees_neither_the_roots_store_nor_the_shared_nous_sign_in(
    tmp_path: Path, order: str
) -> None:
    seen = probe(tmp_path, order)
    assert seen == {"pool": [], "pooled": [], "nous": None, "shared": None,
                    "source": True, "shared_after": "root-nous"}  # fmt: skip


def test_without_it_hermes_hands_a_named_profile_the_roots_credentials(tmp_path: Path) -> None:
    seen = probe(tmp_path, "never")
    assert seen["pooled"] == ["root-key"]
    assert seen["nous"] == {"access_token": "root-nous"}
    assert seen["shared_after"] == "work-token"  # one profile's sign-in written for all
