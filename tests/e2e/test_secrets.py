"""A skill's secrets through the real binary and real hermes-agent: when the agent loads a
skill whose required variable the profile lacks, hermes asks the host (secret/requested);
the value is saved to that profile's .env by hermes, never sent back, and no other
profile sees it."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError

from .conftest import (
    StartHost,
    asked,
    background_calls,
    delegating,
    received,
    resolutions,
    subagent_ended,
    within_the_turn,
    worker_pids,
)

VAR = "KIWI_API_TOKEN"
VALUE = "kiwi-tok-8c1f2a"
SKILL = f"""---
name: kiwi-api
description: Talks to the Kiwi API.
required_environment_variables:
  - name: {VAR}
    prompt: Your Kiwi API token
    help: https://kiwi.example/tokens
    required_for: reading orders
---
# kiwi-api

Call the Kiwi API with ${VAR}.
"""


def add_skill(home: Path) -> None:
    where = home / "skills" / "kiwi-api"
    where.mkdir(parents=True)
    (where / "SKILL.md").write_text(SKILL)


@pytest.fixture
def host(start_host: StartHost, home: Path) -> HostClient:
    add_skill(home)
    add_skill(home / "profiles" / "work")
    h = start_host()
    h.initialize()
    return h


def load_skill(
    host: HostClient, llm: ScriptedLLM, session_id: str, profile: str = "default"
) -> str:
    llm.enqueue(Reply.tool_call("skill_view", {"name": "kiwi-api"}), Reply.text(["done"]))
    params = {"sessionId": session_id, "profile": profile, "message": "use kiwi"}
    return str(host.request("run/start", params)["runId"])


def respond(host: HostClient, run_id: str, note: Notification, value: str | None) -> Any:
    params = {"runId": run_id, "secretId": note.params["secretId"], "value": value}
    return host.request("secret/respond", params)


def skill_result(host: HostClient, run_id: str) -> dict[str, Any]:
    for n in host.run_notifications(run_id):
        event = n.params.get("event") or {}
        if event.get("type") == "tool.completed" and event.get("name") == "skill_view":
            result: dict[str, Any] = json.loads(event["result"])
            return result
    raise AssertionError("no skill_view tool.completed")


def test_the_hosts_secret_is_saved_to_the_profile_and_never_comes_back(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    run_id = load_skill(host, llm, "sess-a")
    note = asked(host, run_id, "secret")
    assert note.params == {
        "runId": run_id,
        "sessionId": "sess-a",
        "seq": note.params["seq"],
        "secretId": note.params["secretId"],
        "envVar": VAR,
        "prompt": "Your Kiwi API token",
        "skillName": "kiwi-api",
        "help": "https://kiwi.example/tokens",
        "requiredFor": "reading orders",
        "timeoutMs": 300_000,
    }
    assert respond(host, run_id, note, VALUE) == {"outcome": "answered"}
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "complete"
    [closed] = resolutions(host, run_id, "secret")
    assert closed == {
        "runId": run_id,
        "sessionId": "sess-a",
        "seq": closed["seq"],
        "secretId": note.params["secretId"],
        "outcome": "stored",
    }
    assert note.params["seq"] < closed["seq"] < done.params["seq"]
    result = skill_result(host, run_id)
    assert (result["setup_needed"], result["missing_required_environment_variables"]) == (
        False,
        [],
    )
    env_file = home / ".env"
    assert f"{VAR}={VALUE}" in env_file.read_text().splitlines()

    # Saved: the next load does not ask again.
    again = load_skill(host, llm, "sess-b")
    host.wait_run_completed(again)
    assert not [n for n in host.run_notifications(again) if n.method == "secret/requested"]
    assert skill_result(host, again)["setup_needed"] is False

    # Another profile has its own .env: its worker asks for its own.
    other = load_skill(host, llm, "sess-w", profile="work")
    respond(host, other, asked(host, other, "secret"), None)
    host.wait_run_completed(other)
    assert [r["outcome"] for r in resolutions(host, other, "secret")] == ["skipped"]
    assert skill_result(host, other)["missing_required_environment_variables"] == [VAR]
    assert VAR not in (home / "profiles" / "work" / ".env").read_text()

    assert not [f for f in host.raw_frames if VALUE.encode() in f]
    assert not [line for line in host.stderr_lines if VALUE in line]


def test_skipping_leaves_the_skill_unconfigured_and_the_run_goes_on(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    run_id = load_skill(host, llm, "sess-a")
    assert respond(host, run_id, asked(host, run_id, "secret"), "") == {"outcome": "skipped"}
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "complete"
    assert [r["outcome"] for r in resolutions(host, run_id, "secret")] == ["skipped"]
    result = skill_result(host, run_id)
    assert (result["setup_needed"], result["setup_skipped"]) == (True, True)
    assert VAR not in (home / ".env").read_text()


def test_a_skill_command_asks_for_its_secret_while_it_expands(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["done"]))
    run_id = host.request("run/start", {"sessionId": "sess-a", "message": "/kiwi-api go"})["runId"]
    respond(host, run_id, asked(host, run_id, "secret"), VALUE)
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "complete"
    assert [r["outcome"] for r in resolutions(host, run_id, "secret")] == ["stored"]
    assert f"{VAR}={VALUE}" in (home / ".env").read_text().splitlines()


def test_an_interrupt_cancels_the_request_and_answering_it_is_unknown_secret(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    run_id = load_skill(host, llm, "sess-a")
    note = asked(host, run_id, "secret")
    host.request("run/interrupt", {"runId": run_id})
    done = host.wait_run_completed(run_id)
    assert done.params["status"] == "interrupted"
    assert [r["outcome"] for r in resolutions(host, run_id, "secret")] == ["cancelled"]
    with pytest.raises(RpcError) as err:
        respond(host, run_id, note, VALUE)
    assert err.value.kind is ErrorType.UNKNOWN_SECRET
    assert err.value.data == {"secretId": note.params["secretId"]}
    assert VAR not in (home / ".env").read_text()


def test_a_request_whose_worker_dies_is_closed_before_the_runs_completion(
    host: HostClient, llm: ScriptedLLM
) -> None:
    run_id = load_skill(host, llm, "sess-a")
    note = asked(host, run_id, "secret")
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    done = host.wait_run_completed(run_id)
    assert done.params["error"]["type"] == "worker_crashed"
    [closed] = resolutions(host, run_id, "secret")
    assert (closed["secretId"], closed["outcome"]) == (note.params["secretId"], "cancelled")
    assert closed["seq"] == done.params["seq"] - 1


def test_a_subagent_within_the_turn_asks_for_its_skills_secret_in_its_parents_run(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    add_skill(home)
    host, held = within_the_turn(start_host, llm, home)
    goal = "use the kiwi skill"
    llm.enqueue_for(goal, Reply.tool_call("skill_view", {"name": "kiwi-api"}), Reply.text(["done"]))
    run_id = delegating(host, llm, goal, "sess-a")
    note = asked(host, run_id, "secret")
    assert (note.params["envVar"], note.params["skillName"]) == (VAR, "kiwi-api")
    assert respond(host, run_id, note, VALUE) == {"outcome": "answered"}
    assert host.wait_run_completed(run_id).params["status"] == "complete"
    assert [r["outcome"] for r in resolutions(host, run_id, "secret")] == ["stored"]
    assert f"{VAR}={VALUE}" in (home / ".env").read_text()
    assert not [f for f in host.raw_frames if VALUE.encode() in f]
    held.release.set()


def test_a_background_subagent_loading_the_skill_asks_nobody_and_saves_nothing(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    goal = "use the kiwi skill"
    llm.enqueue_for(goal, Reply.tool_call("skill_view", {"name": "kiwi-api"}), Reply.text(["done"]))
    run_id = delegating(host, llm, goal, "sess-a")
    assert host.wait_run_completed(run_id).params["status"] == "complete"
    subagent_ended(host)
    assert [p["name"] for p in background_calls(host)] == ["skill_view"]
    assert received(host, "secret/requested") == []
    assert VAR not in (home / ".env").read_text()


@pytest.mark.parametrize("value", ["kiwi-\u0442ok", "kiwi\x00tok"], ids=["cyrillic-t", "nul"])
def test_a_value_hermes_would_mangle_is_failed_saved_nowhere_and_printed_nowhere(
    host: HostClient, llm: ScriptedLLM, home: Path, value: str
) -> None:
    run_id = load_skill(host, llm, "sess-a")
    assert respond(host, run_id, asked(host, run_id, "secret"), value) == {"outcome": "answered"}
    assert host.wait_run_completed(run_id).params["status"] == "complete"
    assert [r["outcome"] for r in resolutions(host, run_id, "secret")] == ["failed"]
    assert VAR not in (home / ".env").read_text()
    assert not [line for line in host.stderr_lines if "\u0442" in line or "\x00" in line]


def test_a_cron_jobs_skill_secret_is_asked_in_the_jobs_run_and_saved_to_its_profile(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    from .test_cron import cron_job

    job = cron_job(home, "use kiwi")
    llm.enqueue(Reply.tool_call("skill_view", {"name": "kiwi-api"}), Reply.text(["done"]))
    run = host.request("cron/run", {"jobId": job})
    note = asked(host, run["runId"], "secret")  # in the job's own run
    assert (note.params["sessionId"], note.params["envVar"]) == (run["sessionId"], VAR)
    assert respond(host, run["runId"], note, VALUE) == {"outcome": "answered"}
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["result"]["finalResponse"]) == ("complete", "done")
    assert [r["outcome"] for r in resolutions(host, run["runId"], "secret")] == ["stored"]
    assert skill_result(host, run["runId"])["setup_needed"] is False
    assert f"{VAR}={VALUE}" in (home / ".env").read_text().splitlines()
    assert VAR not in (home / "profiles" / "work" / ".env").read_text()
