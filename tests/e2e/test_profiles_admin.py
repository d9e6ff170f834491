"""profile/create and profile/delete through the real binary and real hermes-agent:
a profile made as hermes profile create makes it, fresh or cloned, then usable
like any other; one deleted as hermes profile delete deletes it, its workers
stopped first."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.testing.replies import Gate
from hermes_stdio.wire import ErrorType

from .conftest import DEFAULT_SECRET, WORK_SECRET, received, refused


def create(host: HostClient, name: str, **params: Any) -> dict[str, Any]:
    return host.request("profile/create", {"name": name, **params})["profile"]  # type: ignore[no-any-return]


def test_a_fresh_profile_is_made_listed_and_pushed(host: HostClient, home: Path) -> None:
    # Pushed are changes the watch sees: one set up after the create would see none.
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    made = create(host, "kiwi", description="Fruit research")
    kiwi = home / "profiles" / "kiwi"
    assert made == {
        "name": "kiwi",
        "home": str(kiwi),
        "model": None,
        "provider": None,
        "description": "Fruit research",
        "workers": 0,
        "problem": None,
        "active": False,
    }
    assert made in host.request("profile/list")["profiles"]
    assert stat.S_IMODE((kiwi / ".env").stat().st_mode) == 0o600
    assert (kiwi / "SOUL.md").is_file() and (kiwi / "skills").is_dir()
    assert not (home.parent / "user-home" / ".local" / "bin" / "kiwi").exists()  # no alias
    host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    assert received(host, "profile/listChanged")


def test_a_clone_copies_its_sources_settings_and_runs_as_itself(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    made = create(host, "kiwi", cloneFrom="work")
    assert (made["model"], made["provider"]) == ("test-model", "custom")
    assert WORK_SECRET in (home / "profiles" / "kiwi" / ".env").read_text()
    llm.enqueue(Reply.text(["hello from kiwi"]))
    run = host.request("run/start", {"message": "hi", "profile": "kiwi"})
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "complete", done.params
    assert done.params["result"]["finalResponse"] == "hello from kiwi"
    seen = host.request(
        "shell/exec",
        {"command": ["bash", "-c", 'echo "[$WORK_SECRET][$DEFAULT_SECRET]"'], "profile": "kiwi"},
    )
    assert seen["stdout"] == f"[{WORK_SECRET}][]\n"  # its own copy; never default's
    assert DEFAULT_SECRET not in seen["stdout"]


def test_a_taken_or_bad_name_or_source_is_refused_and_nothing_is_made(
    host: HostClient, home: Path
) -> None:
    create(host, "kiwi")
    for params, kind in [
        ({"name": "kiwi"}, ErrorType.PROFILE_EXISTS),
        ({"name": "work"}, ErrorType.PROFILE_EXISTS),
        ({"name": "default"}, ErrorType.PROFILE_EXISTS),
        ({"name": "Kiwi!"}, ErrorType.INVALID_PROFILE),
        ({"name": "../escape"}, ErrorType.INVALID_PROFILE),
        ({"name": "sudo"}, ErrorType.INVALID_PROFILE),  # hermes reserves it
        ({"name": "lime", "cloneFrom": "nobody"}, ErrorType.UNKNOWN_PROFILE),
        ({"name": "lime", "cloneFrom": "work", "noSkills": True}, ErrorType.INVALID_PARAMS),
    ]:
        err = refused(host, "profile/create", params)
        assert err.kind is kind, params
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["kiwi", "play", "work"]
    assert not (home.parent / "escape").exists()


def test_deleting_a_profile_stops_its_workers_then_removes_it_and_refuses_it_after(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    held = Gate()
    llm.enqueue(Reply.text(["never finished"], gate=held))
    run = host.request("run/start", {"message": "hi", "profile": "work"})
    assert held.arrived.wait(30)  # its turn is in its model call
    try:
        gone = host.request("profile/delete", {"name": "work"}, timeout=60)
    finally:
        held.release.set()
    assert gone == {"home": str(home / "profiles" / "work")}
    assert not (home / "profiles" / "work").exists()
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "error"
    assert done.params["error"]["type"] == "worker_stopped"
    exited = [n.params for n in received(host, "worker/exited")]
    assert [(e["profile"], e["reason"], e["expected"]) for e in exited] == [
        ("work", "deleted", True)
    ]
    assert "work" not in [p["name"] for p in host.request("profile/list")["profiles"]]
    assert "work" not in [w["profile"] for w in host.request("supervisor/status")["workers"]]
    for params in ({"message": "hi", "profile": "work"}, {"message": "hi", **run}):
        params.pop("runId", None)
        assert refused(host, "run/start", params).kind is ErrorType.UNKNOWN_PROFILE
    assert refused(host, "profile/delete", {"name": "work"}).kind is ErrorType.UNKNOWN_PROFILE
    # Its name is free again, and the new profile holds none of its sessions.
    assert create(host, "work")["home"] == str(home / "profiles" / "work")
    stale = refused(host, "session/status", {"sessionId": run["sessionId"]})
    assert stale.kind is ErrorType.UNKNOWN_PROFILE and stale.data["profile"] == "work"
    for profile in ("work", "default"):  # the id is free wherever a host names it
        status = host.request("session/status", {"sessionId": run["sessionId"], "profile": profile})
        assert (status["profile"], status["loaded"]) == (profile, False)


def test_default_or_an_unknown_profile_is_never_deleted(host: HostClient, home: Path) -> None:
    assert refused(host, "profile/delete", {"name": "default"}).kind is ErrorType.INVALID_PROFILE
    assert refused(host, "profile/delete", {"name": "nobody"}).kind is ErrorType.UNKNOWN_PROFILE
    assert refused(host, "profile/delete", {"name": "../x"}).kind is ErrorType.INVALID_PROFILE
    assert (home / "config.yaml").is_file()
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["play", "work"]


def test_renaming_a_profile_stops_its_workers_and_its_sessions_go_on_under_the_new_name(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["noted"]))
    first = host.request("run/start", {"message": "remember the kiwi", "profile": "work"})
    sid = first["sessionId"]
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    held = Gate()
    llm.enqueue(Reply.text(["never finished"], gate=held))
    run = host.request("run/start", {"message": "and then?", "sessionId": sid})
    assert held.arrived.wait(30)  # its turn is in its model call
    try:
        renamed = host.request("profile/rename", {"name": "work", "newName": "job"}, timeout=60)
    finally:
        held.release.set()
    job = home / "profiles" / "job"
    assert renamed["profile"] == {
        "name": "job",
        "home": str(job),
        "model": "test-model",
        "provider": "custom",
        "description": "",
        "workers": 0,
        "problem": None,
        "active": False,
    }
    assert not (home / "profiles" / "work").exists()
    done = host.wait_run_completed(run["runId"])
    assert done.params["error"]["type"] == "worker_stopped"
    exited = [n.params for n in received(host, "worker/exited")]
    assert [(e["profile"], e["reason"], e["expected"]) for e in exited] == [
        ("work", "renamed", True)
    ]
    assert "work" not in [w["profile"] for w in host.request("supervisor/status")["workers"]]
    # The session, by its id alone, goes on in the new name's worker, from its database.
    llm.enqueue(Reply.text(["the kiwi, still"]))
    third = host.request("run/start", {"message": "what was it?", "sessionId": sid})
    assert third["sessionId"] == sid
    assert host.wait_run_completed(third["runId"]).params["status"] == "complete"
    asked = json.dumps(llm.requests[-1]["messages"])
    assert "remember the kiwi" in asked and "noted" in asked
    started = [n.params for n in received(host, "worker/started")]
    assert started[-1]["worker"]["profile"] == "job"
    seen = host.request(
        "shell/exec", {"command": ["bash", "-c", "echo $WORK_SECRET"], "sessionId": sid}
    )
    assert seen["stdout"] == f"{WORK_SECRET}\n"  # its keys moved with it
    for method, params in [
        ("run/start", {"message": "hi", "profile": "work"}),
        ("profile/rename", {"name": "work", "newName": "job2"}),
    ]:
        assert refused(host, method, params).kind is ErrorType.UNKNOWN_PROFILE
    taken = refused(host, "profile/rename", {"name": "job", "newName": "play"})
    assert taken.kind is ErrorType.PROFILE_EXISTS and taken.data["profile"] == "play"
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["job", "play"]


def test_a_description_is_set_and_cleared_as_the_dashboard_does_without_a_worker(
    host: HostClient, home: Path
) -> None:
    meta = home / "profiles" / "work" / "profile.yaml"
    meta.write_text("description: old\nkanban_lane: reviews\n")
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    set_ = host.request("profile/setDescription", {"name": "work", "description": "  Day job  "})
    assert set_["profile"]["description"] == "Day job"
    assert set_["profile"] in host.request("profile/list")["profiles"]
    host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    assert yaml.safe_load(meta.read_text()) == {
        "description": "Day job",
        "kanban_lane": "reviews",  # kept
        "description_auto": False,  # the user's: hermes' describer leaves it
    }
    cleared = host.request("profile/setDescription", {"name": "work", "description": None})
    assert cleared["profile"]["description"] == ""
    root = host.request("profile/setDescription", {"name": "default", "description": "Home"})
    assert root["profile"]["home"] == str(home)
    assert yaml.safe_load((home / "profile.yaml").read_text())["description"] == "Home"
    for params, kind in [
        ({"name": "work", "description": "x" * 501}, ErrorType.INVALID_PARAMS),
        ({"name": "work", "description": "a\nb"}, ErrorType.INVALID_PARAMS),
        ({"name": "work", "description": ""}, ErrorType.INVALID_PARAMS),
        ({"name": "nobody", "description": "x"}, ErrorType.UNKNOWN_PROFILE),
        ({"name": "../work", "description": "x"}, ErrorType.INVALID_PROFILE),
    ]:
        assert refused(host, "profile/setDescription", params).kind is kind, params
    assert not received(host, "worker/started")


def test_a_description_that_looks_like_an_option_is_taken_as_text(
    host: HostClient, home: Path
) -> None:
    made = create(host, "kiwi", description="-rf --profile=work")
    assert made["description"] == "-rf --profile=work"
    cloned = create(host, "lime", cloneFrom="kiwi", description="--no-skills")
    assert cloned["description"] == "--no-skills"
    assert (
        host.request("profile/rename", {"name": "lime", "newName": "lemon"})["profile"][
            "description"
        ]
        == "--no-skills"
    )


def test_the_active_profile_is_set_as_hermes_profile_use_does_and_pushed_when_it_changes(
    host: HostClient, home: Path
) -> None:
    def active() -> list[str]:
        return [p["name"] for p in host.request("profile/list")["profiles"] if p["active"]]

    assert active() == ["default"]
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    made = host.request("profile/setActive", {"name": "work"})["profile"]
    assert (made["name"], made["active"]) == ("work", True)
    assert (home / "active_profile").read_text() == "work\n"
    assert active() == ["work"]
    host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)

    pushes = len(received(host, "profile/listChanged"))
    (home / "active_profile").write_text("play\n")  # hermes profile use play
    host.wait_for(lambda _n: len(received(host, "profile/listChanged")) > pushes, timeout=20)
    assert active() == ["play"]

    assert host.request("profile/setActive", {"name": "default"})["profile"]["active"] is True
    assert not (home / "active_profile").exists()  # as hermes: no file is the default
    assert active() == ["default"]
    for params, kind in [
        ({"name": "nobody"}, ErrorType.UNKNOWN_PROFILE),
        ({"name": "../work"}, ErrorType.INVALID_PROFILE),
        ({"name": ""}, ErrorType.INVALID_PARAMS),
    ]:
        assert refused(host, "profile/setActive", params).kind is kind, params
    assert not (home / "active_profile").exists()
    assert not received(host, "worker/started")
