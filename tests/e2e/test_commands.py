"""Slash commands through the real binary and real hermes-agent: command/list shows the
profile's skills and bundles, and a run/start message that starts with one runs it the
way hermes' CLI does."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import received

SKILL = """---
name: {name}
description: {description}
---
# {name}

{body}
"""


def add_skill(home: Path, name: str, description: str, body: str) -> None:
    where = home / "skills" / name
    where.mkdir(parents=True)
    (where / "SKILL.md").write_text(SKILL.format(name=name, description=description, body=body))


@pytest.fixture
def skilled(home: Path) -> Path:
    add_skill(home, "fruit-word", "Answers with a fruit.", "Always answer with PAPAYA.")
    add_skill(home, "veg-word", "Answers with a vegetable.", "Always answer with TURNIP.")
    bundles = home / "skill-bundles"
    bundles.mkdir()
    (bundles / "greens.yaml").write_text(
        "name: greens\ndescription: Fruit and veg.\nskills: [fruit-word, veg-word]\n"
    )
    return home


def mine(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in commands if c["name"] in ("/fruit-word", "/veg-word", "/greens")]


def user_message_sent(llm: ScriptedLLM) -> str:
    return str(llm.requests[-1]["messages"][-1]["content"])


def expanded(host: HostClient, run_id: str) -> list[dict[str, Any]]:
    notes = host.run_notifications(run_id)
    return [
        n.params["event"]
        for n in notes
        if n.method == "run/event" and n.params["event"]["type"] == "command.expanded"
    ]


def test_command_list_shows_the_profiles_skills_and_bundles(
    skilled: Path, host: HostClient
) -> None:
    commands = host.request("command/list", {})["commands"]
    assert mine(commands) == [
        {"name": "/fruit-word", "description": "Answers with a fruit.", "kind": "skill"},
        {"name": "/greens", "description": "Fruit and veg.", "kind": "bundle"},
        {"name": "/veg-word", "description": "Answers with a vegetable.", "kind": "skill"},
    ]
    assert [c["name"] for c in commands] == sorted(c["name"] for c in commands)
    assert mine(host.request("command/list", {"profile": "work"})["commands"]) == []


def test_a_skill_command_sends_the_skill_with_the_rest_as_the_instruction(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["PAPAYA"]))
    run = host.request("run/start", {"message": "/fruit_word name one please"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    sent = user_message_sent(llm)
    assert "Always answer with PAPAYA." in sent and "name one please" in sent
    assert expanded(host, run["runId"]) == [
        {
            "type": "command.expanded",
            "command": "/fruit-word",
            "kind": "skill",
            "skills": ["fruit-word"],
            "missing": [],
        }
    ]


def test_a_bundle_and_stacked_skills_load_every_skill(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["both"]), Reply.text(["both"]))
    bundle = host.request("run/start", {"message": "/greens go"})
    host.wait_run_completed(bundle["runId"])
    sent = user_message_sent(llm)
    assert "PAPAYA" in sent and "TURNIP" in sent
    event = expanded(host, bundle["runId"])[0]
    assert (event["kind"], sorted(event["skills"])) == ("bundle", ["fruit-word", "veg-word"])

    stacked = host.request(
        "run/start", {"sessionId": bundle["sessionId"], "message": "/fruit-word /veg-word go"}
    )
    host.wait_run_completed(stacked["runId"])
    sent = user_message_sent(llm)
    assert "PAPAYA" in sent and "TURNIP" in sent
    assert expanded(host, stacked["runId"])[0]["skills"] == ["fruit-word", "veg-word"]


def test_other_slash_text_and_expand_commands_false_are_sent_as_typed(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]), Reply.text(["ok"]))
    path = host.request("run/start", {"message": "/etc/hosts: what is it?"})
    host.wait_run_completed(path["runId"])
    assert user_message_sent(llm) == "/etc/hosts: what is it?"
    plain = host.request(
        "run/start",
        {"sessionId": path["sessionId"], "message": "/fruit-word", "expandCommands": False},
    )
    host.wait_run_completed(plain["runId"])
    assert user_message_sent(llm) == "/fruit-word"
    assert expanded(host, path["runId"]) == expanded(host, plain["runId"]) == []


def test_a_skill_added_while_the_worker_runs_is_found(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]), Reply.text(["KALE"]))
    first = host.request("run/start", {"message": "/fruit-word"})
    host.wait_run_completed(first["runId"])
    add_skill(skilled, "leaf-word", "Answers with a leaf.", "Always answer with KALE.")
    run = host.request("run/start", {"message": "/leaf-word"})
    host.wait_run_completed(run["runId"])
    assert "Always answer with KALE." in user_message_sent(llm)


def test_a_skill_the_agent_creates_edits_or_deletes_is_pushed_as_a_change_of_the_commands(
    host: HostClient, llm: ScriptedLLM
) -> None:
    skill = "---\nname: tidy\ndescription: Tidy things.\n---\n\nTidy up.\n"
    calls: list[tuple[dict[str, Any], int]] = [  # a skill_manage call, and the pushes after it
        ({"action": "create", "name": "tidy", "content": skill}, 1),
        ({"action": "write_file", "name": "tidy", "file_path": "notes.md", "file_content": "x"}, 1),
        ({"action": "delete", "name": "no-such-skill"}, 1),  # fails: nothing changed
        ({"action": "patch", "name": "tidy", "old_string": "things", "new_string": "rooms"}, 2),
    ]
    for args, pushes in calls:
        llm.enqueue(Reply.tool_call("skill_manage", args), Reply.text(["done"]))
        run = host.request("run/start", {"message": "manage skills", "profile": "work"})
        host.wait_run_completed(run["runId"])  # the push was written before the call returned
        changed = received(host, "command/listChanged")
        assert [n.params for n in changed] == [{"profile": "work"}] * pushes, args
    commands = host.request("command/list", {"profile": "work"})["commands"]
    assert {"name": "/tidy", "description": "Tidy rooms.", "kind": "skill"} in commands

    llm.enqueue(
        Reply.tool_call("skill_manage", {"action": "delete", "name": "tidy"}), Reply.text(["ok"])
    )
    run = host.request("run/start", {"message": "drop it", "profile": "work"})
    host.wait_run_completed(run["runId"])
    assert len(received(host, "command/listChanged")) == 3
    commands = host.request("command/list", {"profile": "work"})["commands"]
    assert "/tidy" not in [c["name"] for c in commands]


def pushed(host: HostClient, profile: str, count: int) -> None:
    """Wait (bounded) for the next ``command/listChanged``, which must name ``profile`` and
    be the ``count``-th: one more of an earlier change would have come before it."""
    note = host.wait_for(lambda n: n.method == "command/listChanged", timeout=20)
    assert note.params == {"profile": profile}
    assert len(received(host, "command/listChanged")) == count


def described(host: HostClient, params: dict[str, Any]) -> dict[str, str]:
    commands = host.request("command/list", params)["commands"]
    return {c["name"]: c["description"] for c in commands}


def test_skills_the_user_adds_edits_or_removes_on_disk_are_pushed_while_the_worker_runs(
    skilled: Path, host: HostClient
) -> None:
    assert "/leaf-word" not in described(host, {})  # the worker runs, and has looked
    assert received(host, "command/listChanged") == []  # its start is no change
    skills = skilled / "skills"
    draft = skills / ".leaf-word.tmp"  # an editor's temp directory, renamed into place
    draft.mkdir()
    (draft / "SKILL.md").write_text(SKILL.format(name="leaf-word", description="Leaf.", body="."))
    draft.rename(skills / "leaf-word")
    pushed(host, "default", 1)
    assert described(host, {})["/leaf-word"] == "Leaf."

    (skills / "leaf-word" / "references").mkdir()  # what makes no command: nothing
    (skills / "leaf-word" / "references" / "notes.md").write_text("notes")
    (skills / "leaf-word" / "SKILL.md").write_text(
        SKILL.format(name="leaf-word", description="Kale.", body=".")
    )
    pushed(host, "default", 2)
    assert described(host, {})["/leaf-word"] == "Kale."

    shutil.rmtree(skills / "leaf-word")
    pushed(host, "default", 3)
    assert "/leaf-word" not in described(host, {})
    (skilled / "skill-bundles" / "greens.yaml").unlink()
    pushed(host, "default", 4)
    assert "/greens" not in described(host, {})


def test_a_change_on_disk_is_pushed_once_however_many_of_the_profiles_workers_saw_it(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    keys = (None, "repo")  # two workers of the default profile
    for key in keys:
        described(host, {"workerKey": key})
    assert len(host.request("supervisor/status", {})["workers"]) == 2
    assert received(host, "command/listChanged") == []
    for count, name in enumerate(("leaf-word", "root-word"), 1):
        add_skill(skilled, name, "A word.", ".")
        pushed(host, "default", count)
        for key in keys:
            # A skill_manage that changes nothing makes its worker look now, so once the
            # turn is over each worker has reported what it saw of the change.
            failed = {"action": "delete", "name": "no-such-skill"}
            llm.enqueue(Reply.tool_call("skill_manage", failed), Reply.text(["ok"]))
            run = host.request("run/start", {"message": "x", "workerKey": key})
            host.wait_run_completed(run["runId"])
        assert len(received(host, "command/listChanged")) == count


def test_a_change_made_while_no_worker_of_the_profile_ran_is_pushed_when_one_starts(
    skilled: Path, host: HostClient
) -> None:
    described(host, {})
    (worker,) = host.request("supervisor/status", {})["workers"]
    os.kill(worker["pid"], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=20)
    add_skill(skilled, "leaf-word", "Leaf.", ".")
    assert received(host, "command/listChanged") == []
    assert "/leaf-word" in described(host, {})  # starts its next worker
    pushed(host, "default", 1)


def test_a_skill_file_that_is_a_fifo_is_left_out_and_the_profiles_other_skills_work(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    # hermes reads every SKILL.md and DESCRIPTION.md its scans find, whole: a FIFO
    # would hang the first turn, command/list and any skill lookup by name.
    (skilled / "skills" / "jammed").mkdir()
    os.mkfifo(skilled / "skills" / "jammed" / "SKILL.md")
    os.mkfifo(skilled / "skills" / "DESCRIPTION.md")
    names = [c["name"] for c in host.request("command/list", {})["commands"]]
    assert "/fruit-word" in names and "/jammed" not in names

    llm.enqueue(Reply.tool_call("skill_view", {"name": "Fruit"}), Reply.text(["ok"]))
    run = host.request("run/start", {"message": "which fruit?"})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    prompt = str(llm.requests[0]["messages"][0]["content"])
    assert "fruit-word" in prompt and "jammed" not in prompt
    looked_up = [
        n.params["event"]["result"]
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event" and n.params["event"]["type"] == "tool.completed"
    ]
    assert len(looked_up) == 1 and "not found" in looked_up[0].lower()
    assert [line for line in host.stderr_lines if "jammed/SKILL.md" in line and "left out" in line]


def test_a_turn_blocked_reading_a_fifo_skill_it_named_ends_when_its_worker_is_restarted(
    skilled: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    # A tool blocked in the kernel is past hermes' interrupt: worker/restart is the way out.
    (skilled / "skills" / "jammed").mkdir()
    os.mkfifo(skilled / "skills" / "jammed" / "SKILL.md")
    llm.enqueue(Reply.tool_call("skill_view", {"name": "jammed"}), Reply.text(["ok"]))
    run = host.request("run/start", {"message": "load jammed"})
    host.wait_for(
        lambda n: (
            n.method == "run/event"
            and n.params["event"]["type"] == "tool.started"
            and n.params["event"]["name"] == "skill_view"
        ),
        timeout=60,
    )
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": True}
    host.request("worker/restart", {}, timeout=60)
    done = host.wait_run_completed(run["runId"], timeout=60).params
    assert (done["status"], done["error"]["type"]) == ("error", RunErrorType.WORKER_STOPPED)
    llm.enqueue(Reply.text(["fine"]))
    again = host.request("run/start", {"message": "hi", "sessionId": run["sessionId"]})
    assert host.wait_run_completed(again["runId"], timeout=60).params["status"] == "complete"
