"""A skill's SKILL.md through the real binary and real hermes-agent: skill/create,
skill/read, skill/write and skill/delete, as hermes' skill_manage makes, checks and
removes them, seen by the worker's next agent and its slash commands."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import ScriptedLLM
from hermes_stdio.testing.locks import flock_waited
from hermes_stdio.transport.file_replace import flocked
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import received, refused
from .test_commands import add_skill
from .test_skills import commands, prompt_of_next_agent


def skill_md(description: str) -> str:
    return f"---\nname: kiwi-word\ndescription: {description}\n---\n\nAlways answer KIWI.\n"


def test_a_skill_made_edited_and_deleted_by_the_host_reaches_the_workers_next_agent(
    home: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    assert "kiwi-word" not in prompt_of_next_agent(host, llm)  # the worker is warm

    made = host.request(
        "skill/create",
        {"name": "kiwi-word", "content": skill_md("Answers with a kiwi."), "category": "fruit"},
    )
    path = home / "skills" / "fruit" / "kiwi-word" / "SKILL.md"
    assert made["path"] == str(path) and path.read_text() == skill_md("Answers with a kiwi.")
    assert "Answers with a kiwi." in prompt_of_next_agent(host, llm)
    assert "/kiwi-word" in commands(host)
    listed = {s["name"]: s for s in host.request("skill/list")["skills"]}
    assert listed["kiwi-word"]["category"] == "fruit"

    read = host.request("skill/read", {"name": "kiwi-word"})
    assert read == {
        "name": "kiwi-word",
        "path": str(path),
        "version": made["version"],
        "content": skill_md("Answers with a kiwi."),
    }
    wrote = host.request(
        "skill/write",
        {
            "name": "kiwi-word",
            "content": skill_md("Answers with a green kiwi."),
            "expectedVersion": read["version"],
        },
    )
    assert "Answers with a green kiwi." in prompt_of_next_agent(host, llm)
    stale = refused(
        host,
        "skill/write",
        {"name": "kiwi-word", "content": skill_md("lost"), "expectedVersion": read["version"]},
    )
    assert stale.kind is ErrorType.CONFIG_CONFLICT and stale.data["version"] == wrote["version"]
    bad = refused(host, "skill/write", {"name": "kiwi-word", "content": "no frontmatter"})
    assert bad.kind is ErrorType.INVALID_PARAMS and bad.data["field"] == "params.content"
    taken = refused(host, "skill/create", {"name": "kiwi-word", "content": skill_md("again")})
    assert taken.kind is ErrorType.SKILL_EXISTS and taken.data["name"] == "kiwi-word"
    assert path.read_text() == skill_md("Answers with a green kiwi.")

    assert host.request("skill/delete", {"name": "kiwi-word"}) == {
        "name": "kiwi-word",
        "path": str(path),
    }
    assert not path.parent.exists()
    assert "kiwi-word" not in prompt_of_next_agent(host, llm)
    assert "/kiwi-word" not in commands(host)
    for method in ("skill/read", "skill/delete"):
        gone = refused(host, method, {"name": "kiwi-word"})
        assert gone.kind is ErrorType.UNKNOWN_SKILL and gone.data["name"] == "kiwi-word"
    other = refused(host, "skill/read", {"name": "kiwi-word", "profile": "work"})
    assert other.kind is ErrorType.UNKNOWN_SKILL  # the skill was the default profile's


def test_a_skill_edited_on_disk_reaches_the_next_agent_of_a_warm_worker(
    home: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    add_skill(home, "kiwi-word", "Answers with a kiwi.", "Always answer KIWI.")
    assert "Answers with a kiwi." in prompt_of_next_agent(host, llm)  # hermes' index is built
    pushes = len(received(host, "command/listChanged"))
    path = home / "skills" / "kiwi-word" / "SKILL.md"
    path.write_text(path.read_text().replace("a kiwi.", "a ripe kiwi."))  # the user's editor
    host.wait_for(lambda _n: len(received(host, "command/listChanged")) > pushes, timeout=20)
    assert "Answers with a ripe kiwi." in prompt_of_next_agent(host, llm)


def test_two_workers_of_a_profile_never_both_write_a_skill_from_one_version(
    home: Path, host: HostClient
) -> None:
    made = host.request("skill/create", {"name": "kiwi-word", "content": skill_md("one")})
    path = Path(made["path"])
    with flocked(path.parent):  # as another worker of the profile holds it, mid-write
        pending = host.send_request(
            "skill/write",
            {
                "name": "kiwi-word",
                "content": skill_md("mine"),
                "expectedVersion": made["version"],
                "workerKey": "second-window",
            },
        )
        assert flock_waited(path.parent), "the second worker did not wait for the skill's lock"
        path.write_text(skill_md("theirs"))
    answer = host.response(pending)
    assert answer.error is not None
    stale = RpcError.from_wire(answer.error)
    assert stale.kind is ErrorType.CONFIG_CONFLICT
    assert stale.data["version"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert path.read_text() == skill_md("theirs")
