"""account/login, account/loginCancel, account/logout through the real binary and
hermes, against a Nous Portal of the device flow on 127.0.0.1 (its inference
endpoint: the scripted LLM)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError
from hermes_stdio.worker.account_login import REPLACED

from .conftest import StartHost, pushed_so_far, worker_pids
from .fixtures.nous_portal import NousPortal, access_token

WORK = {"profile": "work"}


@pytest.fixture
def portal() -> Iterator[NousPortal]:
    p = NousPortal()
    yield p
    p.close()


@pytest.fixture
def host(start_host: StartHost, portal: NousPortal, llm: ScriptedLLM) -> HostClient:
    env = {"HERMES_PORTAL_BASE_URL": portal.base_url, "NOUS_INFERENCE_BASE_URL": llm.base_url}
    h = start_host(env=env)
    h.initialize()
    return h


def nous(host: HostClient) -> dict[str, Any]:
    listing = host.request("model/list", {**WORK, "includeUnconfigured": True}, timeout=60)
    [row] = [p for p in listing["providers"] if p["slug"] == "nous"]
    return dict(row)


def ended(host: HostClient, login_id: str) -> dict[str, Any]:
    def is_it(n: Notification) -> bool:
        return n.method == "account/loginCompleted" and n.params["loginId"] == login_id

    return dict(host.wait_for(is_it, timeout=60).params)


def stored(home: Path, profile: str = "work") -> dict[str, Any]:
    path = home / "profiles" / profile / "auth.json" if profile != "default" else home / "auth.json"
    return json.loads(path.read_text()) if path.exists() else {}


def refused(host: HostClient, method: str, params: dict[str, Any]) -> RpcError:
    with pytest.raises(RpcError) as err:
        host.request(method, params, timeout=60)
    return err.value


def test_a_profile_signs_in_to_nous_portal_and_its_next_agent_calls_the_model_with_the_token(
    host: HostClient, portal: NousPortal, llm: ScriptedLLM, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    before = nous(host)
    assert (before["authenticated"], before["signIn"]) == (False, True)
    started = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    device = portal.codes[-1]
    assert started == {
        "loginId": started["loginId"],
        "provider": "nous",
        "userCode": "WXYZ-0001",
        "verificationUri": f"{portal.base_url}/device",
        "verificationUriComplete": f"{portal.base_url}/device?user_code=WXYZ-0001",
        "expiresIn": 600,
    }
    portal.answer(device, "approved")
    assert ended(host, started["loginId"]) == {
        "profile": "work",
        "workerKey": None,
        "loginId": started["loginId"],
        "provider": "nous",
        "ok": True,
        "error": None,
    }
    assert nous(host)["authenticated"]
    changed = host.wait_for(lambda n: n.method == "account/changed", timeout=30)
    assert changed.params == {"profile": "work"}  # the profile's auth.json, watched
    assert stored(home)["providers"]["nous"]["access_token"] == access_token(device)
    assert "nous" not in stored(home, "default").get("providers", {})  # the profile's own
    assert not (home / "shared" / "nous_auth.json").exists()

    llm.enqueue(Reply.text(["signed in"]))
    run = host.request(
        "run/start", {**WORK, "message": "hi", "provider": "nous", "model": "Hermes-4-70B"}
    )
    done = host.wait_run_completed(run["runId"]).params
    assert done["status"] == "complete", done
    assert llm.authorizations[-1] == f"Bearer {access_token(device)}"

    out = host.request("account/logout", {**WORK, "provider": "nous"})
    assert out == {"provider": "nous", "signedOut": True}
    assert not nous(host)["authenticated"]
    assert "nous" not in stored(home).get("providers", {})
    again = host.request("account/logout", {**WORK, "provider": "nous"})
    assert again == {"provider": "nous", "signedOut": False}


def test_a_declined_sign_in_ends_failed_and_stores_nothing(
    host: HostClient, portal: NousPortal, home: Path
) -> None:
    started = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    portal.answer(portal.codes[-1], "denied")
    done = ended(host, started["loginId"])
    assert (done["ok"], done["provider"]) == (False, "nous")
    assert "access_denied" in done["error"]
    assert "nous" not in stored(home).get("providers", {})
    assert not nous(host)["authenticated"]


def test_a_cancelled_sign_in_ends_at_once_and_an_approval_after_stores_nothing(
    host: HostClient, portal: NousPortal, home: Path
) -> None:
    first = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    portal.wait_polled(portal.codes[-1])
    cancelled = host.request("account/loginCancel", {**WORK, "loginId": first["loginId"]})
    assert cancelled == {"loginId": first["loginId"]}
    done = ended(host, first["loginId"])
    assert (done["ok"], done["error"]) == (False, "cancelled")
    portal.answer(portal.codes[-1], "approved")  # too late: that sign-in is over
    err = refused(host, "account/loginCancel", {**WORK, "loginId": first["loginId"]})
    assert err.kind is ErrorType.UNKNOWN_ACCOUNT_LOGIN
    assert err.data["loginId"] == first["loginId"]

    second = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    portal.answer(portal.codes[-1], "approved")
    assert ended(host, second["loginId"])["ok"]
    token = stored(home)["providers"]["nous"]["access_token"]
    assert token == access_token(portal.codes[-1])


def test_a_second_sign_in_replaces_the_first_which_ends_failed(
    host: HostClient, portal: NousPortal
) -> None:
    first = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    second = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    assert second["userCode"] != first["userCode"]
    done = ended(host, first["loginId"])
    assert (done["ok"], done["error"]) == (False, REPLACED)
    portal.answer(portal.codes[-1], "approved")
    assert ended(host, second["loginId"])["ok"]


def test_a_provider_it_cannot_sign_in_to_is_invalid_params_and_an_unknown_login_is_named(
    host: HostClient,
) -> None:
    err = refused(host, "account/login", {**WORK, "provider": "openai-codex"})
    assert err.kind is ErrorType.INVALID_PARAMS
    assert err.data["field"] == "params.provider"
    err = refused(host, "account/loginCancel", {**WORK, "loginId": "acct_nope"})
    assert err.kind is ErrorType.UNKNOWN_ACCOUNT_LOGIN
    err = refused(host, "account/login", {**WORK})
    assert err.kind is ErrorType.INVALID_PARAMS


def test_a_portal_that_cannot_be_reached_is_account_login_failed(
    start_host: StartHost, portal: NousPortal
) -> None:
    port = portal.base_url.rsplit(":", 1)[1]
    portal.close()  # nothing listens on its port now
    host = start_host(env={"HERMES_PORTAL_BASE_URL": f"http://127.0.0.1:{port}"})
    host.initialize()
    err = refused(host, "account/login", {**WORK, "provider": "nous"})
    assert err.kind is ErrorType.ACCOUNT_LOGIN_FAILED
    assert err.data["provider"] == "nous"


@pytest.mark.parametrize("how", ["killed", "restarted"])
def test_a_sign_in_whose_worker_exits_ends_failed_once_before_worker_exited(
    host: HostClient, portal: NousPortal, how: str
) -> None:
    started = host.request("account/login", {**WORK, "provider": "nous"}, timeout=60)
    if how == "killed":
        os.kill(worker_pids(host)[("work", None)], signal.SIGKILL)
    else:
        host.request("worker/restart", WORK, timeout=60)
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=60)
    completions = [
        m.params
        for _, m in host.received
        if isinstance(m, Notification) and m.method == "account/loginCompleted"
    ]
    why = "was stopped" if how == "restarted" else f"exited ({exited.params['signal']})"
    assert completions == [
        {"profile": "work", "workerKey": None, "loginId": started["loginId"],
         "provider": "nous", "ok": False, "error": f"the worker {why}"}
    ]  # fmt: skip
    err = refused(host, "account/loginCancel", {**WORK, "loginId": started["loginId"]})
    assert err.kind is ErrorType.UNKNOWN_ACCOUNT_LOGIN  # the new worker knows of none


def test_a_sign_in_made_outside_is_pushed_for_its_profile_only_and_a_logout_too(
    host: HostClient, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    state = {"access_token": "made-by-hermes-auth-in-a-terminal"}
    auth = home / "profiles" / "play" / "auth.json"
    auth.write_text(json.dumps({"version": 1, "providers": {"nous": state}}))
    pushed_so_far(host, "account/changed", [{"profile": "play"}])
    out = host.request("account/logout", {"profile": "play", "provider": "nous"})
    assert out == {"provider": "nous", "signedOut": True}
    pushed_so_far(host, "account/changed", [{"profile": "play"}] * 2)
