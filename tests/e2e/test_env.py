"""A profile's environment variables through the real binary and real hermes-agent:
a host lists which are set and where from (never a secret's value), saves one as
hermes saves a credential so the profile's next agent has it and no other profile
ever does, removes one, and is refused what hermes refuses or its administrator
pins."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import WORK_SECRET, StartHost, managed_host, pushed_so_far, refused, tool_result


def variables(host: HostClient, profile: str) -> dict[str, dict[str, Any]]:
    listed = host.request("env/list", {"profile": profile})["variables"]
    return {v["name"]: v for v in listed}


def frames_hold(host: HostClient, text: str) -> bool:
    return any(text in repr(msg) for _, msg in host.received)


def test_a_host_sees_which_variables_are_set_and_where_from_but_no_secrets_value(
    host: HostClient, home: Path
) -> None:
    env = home / "profiles" / "work" / ".env"
    env.write_text(env.read_text() + "NOUS_BASE_URL=http://127.0.0.1:1/v1\n")
    listed = host.request("env/list", {"profile": "work"})
    assert listed["readOnly"] is None
    by_name = {v["name"]: v for v in listed["variables"]}
    assert by_name["WORK_SECRET"] == {
        "name": "WORK_SECRET",
        "description": "",
        "category": None,
        "secret": True,  # hermes does not know it: counted as a secret
        "url": None,
        "advanced": False,
        "source": "profile",
        "value": None,
    }
    assert by_name["NOUS_BASE_URL"]["source"] == "profile"
    assert by_name["NOUS_BASE_URL"]["value"] == "http://127.0.0.1:1/v1"  # not a secret
    openrouter = by_name["OPENROUTER_API_KEY"]
    assert (openrouter["category"], openrouter["secret"], openrouter["source"]) == (
        "provider",
        True,
        None,
    )
    assert openrouter["url"] and openrouter["description"]
    assert listed["variables"][-1]["name"] == "WORK_SECRET"  # hermes' own first
    assert not frames_hold(host, WORK_SECRET)


def region_seen(
    host: HostClient,
    llm: ScriptedLLM,
    profile: str,
    worker_key: str | None = None,
    name: str = "DEPLOY_REGION",
) -> str:
    """What the profile's next agent's command sees of the variable ``name``."""
    llm.enqueue(Reply.tool_call("terminal", {"command": f"echo value=${name}."}))
    llm.enqueue(Reply.text(["done"]))
    params = {"profile": profile, "message": "where?", "workerKey": worker_key}
    run = host.request("run/start", params)
    host.wait_run_completed(run["runId"])
    return tool_result(host, run["runId"]).split("value=", 1)[1].split(".", 1)[0]


def test_a_saved_variable_reaches_the_profiles_next_agent_and_never_another_profile(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    host = start_host(env={"DEPLOY_REGION": "from-the-shell"})
    host.initialize()
    assert "DEPLOY_REGION" not in variables(host, "work")  # the environment is not listed
    saved = host.request(
        "env/set", {"profile": "work", "name": "DEPLOY_REGION", "value": "eu-west-9"}
    )
    assert saved["variable"]["source"] == "profile"
    assert saved["variable"]["value"] is None  # a name hermes does not know: a secret
    assert variables(host, "work")["DEPLOY_REGION"] == saved["variable"]
    assert "DEPLOY_REGION=eu-west-9\n" in (home / "profiles" / "work" / ".env").read_text()
    assert region_seen(host, llm, "work") == "eu-west-9"
    # Now the work profile's secret: a worker started after it lacks even the shell's value.
    assert region_seen(host, llm, "play") == ""
    assert not [line for line in host.stderr_lines if "eu-west-9" in line]


def test_a_key_saved_through_one_worker_reaches_the_next_agent_of_another_running_one(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host(env={"DEPLOY_REGION": "from-the-shell"})
    host.initialize()
    assert region_seen(host, llm, "work", "tab-2") == "from-the-shell"  # its worker runs
    host.request(
        "env/set",
        {"profile": "work", "workerKey": "tab-1", "name": "DEPLOY_REGION", "value": "eu-west-9"},
    )
    assert region_seen(host, llm, "work", "tab-2") == "eu-west-9"
    host.request("env/remove", {"profile": "work", "workerKey": "tab-1", "name": "DEPLOY_REGION"})
    assert region_seen(host, llm, "work", "tab-2") == ""  # as env/remove unsets it there
    workers = {(w["profile"], w["workerKey"]) for w in host.request("supervisor/status")["workers"]}
    assert {("work", "tab-1"), ("work", "tab-2")} <= workers  # neither restarted


def test_a_key_hermes_keeps_from_commands_stays_hidden_from_a_shell_started_before(
    host: HostClient, llm: ScriptedLLM
) -> None:
    key = "BRAVE_SEARCH_API_KEY"  # a provider's key: hermes strips it from commands
    assert region_seen(host, llm, "work", name=key) == ""  # the shell's state is saved
    host.request("env/set", {"profile": "work", "name": key, "value": "bsk-kiwi"})
    assert region_seen(host, llm, "work", name=key) == ""


def test_a_hand_edit_of_the_env_file_reaches_a_running_workers_next_agent_and_is_pushed(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    env = home / "profiles" / "work" / ".env"
    assert region_seen(host, llm, "work") == ""
    before = env.read_text()
    endpoint = "NOUS_BASE_URL=http://127.0.0.1:1/v1\n"  # known to hermes, not a secret
    env.write_text(before + "DEPLOY_REGION=us-east-7\n" + endpoint)  # the user's editor
    pushed_so_far(host, "env/changed", [{"profile": "work"}])
    assert region_seen(host, llm, "work") == "us-east-7"
    assert variables(host, "work")["NOUS_BASE_URL"]["source"] == "profile"
    env.write_text(before)
    pushed_so_far(host, "env/changed", [{"profile": "work"}] * 2)
    listed = variables(host, "work")["NOUS_BASE_URL"]  # not left as the environment's
    assert (listed["source"], listed["value"]) == (None, None)
    assert region_seen(host, llm, "work") == ""
    host.request("env/set", {"profile": "play", "name": "DEPLOY_REGION", "value": "x"})
    pushed_so_far(host, "env/changed", [{"profile": "work"}] * 2 + [{"profile": "play"}])
    assert not [line for line in host.stderr_lines if "us-east-7" in line]


def test_a_removed_variable_is_gone_from_the_file_and_the_worker(
    host: HostClient, home: Path
) -> None:
    removed = host.request("env/remove", {"profile": "work", "name": "WORK_SECRET"})
    assert removed["removed"] is True
    assert removed["variable"]["source"] is None
    assert "WORK_SECRET" not in (home / "profiles" / "work" / ".env").read_text()
    assert "WORK_SECRET" not in variables(host, "work")
    again = host.request("env/remove", {"profile": "work", "name": "WORK_SECRET"})
    assert again["removed"] is False


def test_a_line_break_in_a_value_never_makes_a_second_variable(
    host: HostClient, home: Path
) -> None:
    host.request("env/set", {"name": "MY_NOTE", "value": "a\nPATH=/evil\rLD_PRELOAD=x"})
    lines = (home / ".env").read_text().splitlines()
    assert [line for line in lines if line.startswith("MY_NOTE=")] == [
        "MY_NOTE=aPATH=/evilLD_PRELOAD=x"
    ]
    assert not [line for line in lines if line.startswith(("PATH", "LD_PRELOAD"))]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"name": "PATH", "value": "/evil"}, "params.name"),
        ({"name": "LD_PRELOAD", "value": "x.so"}, "params.name"),
        ({"name": "HERMES_HOME", "value": "/tmp"}, "params.name"),
        ({"name": "1BAD", "value": "x"}, "params.name"),
        ({"name": "A B", "value": "x"}, "params.name"),
        ({"name": "BIG", "value": "x" * 65537}, "params.value"),
        ({"name": "", "value": "x"}, "params.name"),
        ({"name": "MY_NOTE", "value": "cl\u00e9"}, "params.value"),
        ({"name": "MY_NOTE", "value": "a\u0000b"}, "params.value"),
    ],
    ids=[
        "path",
        "ld-preload",
        "hermes-home",
        "digit-first",
        "space",
        "too-long",
        "empty",
        "ascii",
        "nul",
    ],
)
def test_a_name_or_value_hermes_refuses_is_invalid_params_and_nothing_is_saved(
    host: HostClient, home: Path, params: dict[str, str], field: str
) -> None:
    before = (home / ".env").read_bytes()
    err = refused(host, "env/set", params)
    assert err.kind is ErrorType.INVALID_PARAMS
    assert err.data["field"] == field
    assert (home / ".env").read_bytes() == before


def test_what_the_managed_scope_sets_or_a_locked_install_is_config_read_only(
    start_host: StartHost, home: Path, tmp_path: Path
) -> None:
    host = managed_host(
        start_host, tmp_path / "managed", ".env", "OPENROUTER_API_KEY=sk-or-admin\n"
    )
    pinned = variables(host, "work")["OPENROUTER_API_KEY"]
    assert (pinned["source"], pinned["value"]) == ("managed", None)
    for method, params in (
        ("env/set", {"profile": "work", "name": "OPENROUTER_API_KEY", "value": "sk-mine"}),
        ("env/remove", {"profile": "work", "name": "OPENROUTER_API_KEY"}),
    ):
        err = refused(host, method, params)
        assert err.kind is ErrorType.CONFIG_READ_ONLY
        assert err.data["name"] == "OPENROUTER_API_KEY"
    assert "sk-mine" not in (home / "profiles" / "work" / ".env").read_text()
    assert not frames_hold(host, "sk-or-admin")
    (home / "profiles" / "play" / ".managed").touch()  # hermes' package-manager lock
    assert host.request("env/list", {"profile": "play"})["readOnly"] == "NixOS"
    err = refused(host, "env/set", {"profile": "play", "name": "MY_NOTE", "value": "x"})
    assert err.kind is ErrorType.CONFIG_READ_ONLY


def test_a_value_hermes_would_read_back_as_two_variables_is_refused(
    host: HostClient, home: Path
) -> None:
    before = (home / ".env").read_bytes()
    err = refused(
        host, "env/set", {"name": "OPENAI_API_KEY", "value": "sk-1ANTHROPIC_API_KEY=sk-evil"}
    )
    assert (err.kind, err.data["field"]) == (ErrorType.INVALID_PARAMS, "params.value")
    assert (home / ".env").read_bytes() == before


def test_an_env_file_that_is_not_regular_is_profile_unreadable_and_never_read(
    host: HostClient, home: Path
) -> None:
    host.request("env/list", {"profile": "play"})  # its worker runs
    env = home / "profiles" / "play" / ".env"
    env.unlink()
    os.mkfifo(env)  # hermes' read would wait for a writer for ever
    for method, params in (
        ("env/list", {"profile": "play"}),
        ("env/set", {"profile": "play", "name": "MY_NOTE", "value": "x"}),
        ("env/remove", {"profile": "play", "name": "MY_NOTE"}),
    ):
        err = refused(host, method, params)
        assert err.kind is ErrorType.PROFILE_UNREADABLE
        assert err.data["file"] == ".env"


def test_a_model_key_saved_through_another_worker_is_what_the_next_agent_calls_its_model_with(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    config = home / "profiles" / "work" / "config.yaml"
    settings = yaml.safe_load(config.read_text())
    settings["model"]["api_key"] = "${KIWI_LLM_KEY}"  # hermes expands it from the environment
    config.write_text(yaml.safe_dump(settings))
    (home / "profiles" / "work" / ".env").write_text("KIWI_LLM_KEY=sk-kiwi-1\n")

    def key_used() -> str | None:
        llm.enqueue(Reply.text(["hi"]))
        params = {"profile": "work", "workerKey": "tab-2", "message": "hi"}
        host.wait_run_completed(host.request("run/start", params)["runId"])
        return llm.authorizations[-1]

    assert key_used() == "Bearer sk-kiwi-1"
    set_key = {"profile": "work", "workerKey": "tab-1", "name": "KIWI_LLM_KEY"}
    host.request("env/set", {**set_key, "value": "sk-kiwi-2"})
    assert key_used() == "Bearer sk-kiwi-2"
