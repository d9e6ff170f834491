"""A profile's model credentials are its own, through the real binary and hermes.

hermes 0.19 lets a named profile fall back to the root (default) profile's
``auth.json``: its credential pool and its provider sign-ins. (Its shared
Nous Portal store is covered by the worker's unit tests: reaching it takes a
Nous sign-in.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost, template_ready

ROOT_KEY = "sk-root-profile-secret"
WORK_KEY = "sk-work-profile-secret"


def pool_entry(key: str) -> dict[str, object]:
    entry_id = key[-6:]
    return {"id": entry_id, "label": entry_id, "auth_type": "api_key", "priority": 0,
            "source": "manual", "access_token": key}  # fmt: skip


def use_pool(profile_home: Path, base_url: str) -> None:
    """Point the profile's model at a named endpoint whose key hermes keeps in auth.json."""
    config = profile_home / "config.yaml"
    settings = yaml.safe_load(config.read_text())
    settings["custom_providers"] = [{"name": "kiwi", "base_url": base_url}]
    config.write_text(yaml.safe_dump(settings))


def write_auth(profile_home: Path, pool: dict[str, object], **extra: object) -> None:
    store = {"version": 1, "credential_pool": pool, **extra}
    (profile_home / "auth.json").write_text(json.dumps(store))


def key_used(host: HostClient, llm: ScriptedLLM, profile: str) -> str | None:
    llm.enqueue(Reply.text(["hi"]))
    run = host.request("run/start", {"profile": profile, "message": "hi"})
    host.wait_run_completed(run["runId"])
    return llm.authorizations[-1]


@pytest.mark.parametrize("mode", ["spawned", "forked"])
def test_a_named_profile_never_calls_its_model_with_the_default_profiles_pooled_key(
    start_host: StartHost, llm: ScriptedLLM, home: Path, mode: str
) -> None:
    host = start_host(*(["--no-worker-template"] if mode == "spawned" else []))
    host.initialize()
    if mode == "forked":
        template_ready(host)
    for profile_home in (home, home / "profiles" / "work"):
        use_pool(profile_home, llm.base_url)
    write_auth(home, {"custom:kiwi": [pool_entry(ROOT_KEY)]})
    assert key_used(host, llm, "default") == f"Bearer {ROOT_KEY}"  # the setup works
    assert ROOT_KEY not in str(key_used(host, llm, "work"))
    modes = {w["startMode"] for w in host.request("supervisor/status")["workers"]}
    assert modes == {mode}


def test_a_named_profiles_own_pooled_key_is_the_one_it_uses(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    work = home / "profiles" / "work"
    use_pool(work, llm.base_url)
    write_auth(home, {"custom:kiwi": [pool_entry(ROOT_KEY)]})
    write_auth(work, {"custom:kiwi": [pool_entry(WORK_KEY)]})
    assert key_used(host, llm, "work") == f"Bearer {WORK_KEY}"


def test_a_named_profile_is_not_signed_in_to_nous_by_the_default_profiles_sign_in(
    host: HostClient, home: Path
) -> None:
    state = {"access_token": "nous-root-token", "refresh_token": "nous-root-refresh",
             "portal_base_url": "http://127.0.0.1:9", "client_id": "hermes-cli",
             "expires_at": "2099-01-01T00:00:00+00:00"}  # fmt: skip
    write_auth(home, {}, providers={"nous": state}, active_provider="nous")

    def signed_in(profile: str) -> bool:
        listing = host.request("model/list", {"profile": profile})
        return any(p["slug"] == "nous" and p["authenticated"] for p in listing["providers"])

    assert signed_in("default")  # the setup works
    assert not signed_in("work")
