"""skill/read, skill/write, skill/create and skill/delete in WorkerService: answers in
wire names, and each refusal as its error."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from worker_service_helpers import error_of

from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.skill_docs import HermesSkillDocs, SkillDocs

TEXT = "---\nname: kiwi\ndescription: d\n---\n\nbody\n"


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    (tmp_path / "kiwi").mkdir()
    (tmp_path / "kiwi" / "SKILL.md").write_text(TEXT)
    (tmp_path / "locked").mkdir()  # in a directory the file system will not change
    (tmp_path / "locked" / "SKILL.md").write_text(TEXT)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "SKILL.md").write_text(TEXT)
    (tmp_path / "pipe").mkdir()
    os.mkfifo(tmp_path / "pipe" / "SKILL.md")
    return tmp_path


@pytest.fixture
def docs(harness: Any, skills: Path) -> SkillDocs:
    def find(name: str) -> Path | None:
        return skills / name if (skills / name).is_dir() else None

    def edit(name: str, content: str) -> dict[str, Any]:
        if name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied")
        if name == "full":
            raise OSError(errno.ENOSPC, "No space left on device")
        if "description" not in content:
            return {"success": False, "error": "Frontmatter must include 'description' field."}
        (skills / name / "SKILL.md").write_text(content)
        return {"success": True}

    def delete(name: str) -> dict[str, Any]:
        if name == "locked":
            raise OSError(errno.EROFS, "Read-only file system")
        return {"success": False, "error": f"Skill '{name}' is pinned"}

    made = SkillDocs(
        HermesSkillDocs(
            find=find,
            root=lambda: skills,
            check_name=lambda n: None if n.islower() else "lowercase only",
            check_category=lambda c: None,
            create=lambda n, c, cat: {"success": False, "error": "scan blocked it"},
            edit=edit,
            delete=delete,
            changed=lambda: None,
        )
    )
    harness.adapter.skill_docs = lambda: made
    return made


def test_a_read_and_a_write_answer_in_wire_names(harness: Any, docs: SkillDocs, skills: Path):
    read = harness.call("skill/read", {"name": "kiwi"})["result"]
    assert read.keys() == {"name", "path", "version", "content"}
    assert (read["path"], read["content"]) == (str(skills / "kiwi" / "SKILL.md"), TEXT)
    new = TEXT.replace("body", "more")
    wrote = harness.call(
        "skill/write", {"name": "kiwi", "content": new, "expectedVersion": read["version"]}
    )["result"]
    assert wrote.keys() == {"name", "path", "version"} and wrote["version"] != read["version"]
    assert (skills / "kiwi" / "SKILL.md").read_text() == new


BAD, STALE = ErrorType.INVALID_PARAMS, "0" * 64


@pytest.mark.parametrize(
    ("method", "params", "kind", "data"),
    [
        ("skill/read", {"name": "nobody"}, ErrorType.UNKNOWN_SKILL, {"name": "nobody"}),
        ("skill/delete", {"name": "nobody"}, ErrorType.UNKNOWN_SKILL, {"name": "nobody"}),
        ("skill/create", {"name": "kiwi", "content": TEXT}, ErrorType.SKILL_EXISTS,
         {"name": "kiwi"}),
        ("skill/create", {"name": "Kiwi2", "content": TEXT}, BAD, {"field": "params.name"}),
        ("skill/create", {"name": "fig", "content": TEXT}, BAD, {"field": "params.content"}),
        ("skill/write", {"name": "kiwi", "content": "---"}, BAD, {"field": "params.content"}),
        ("skill/delete", {"name": "kiwi"}, BAD, {"field": "params.name"}),
        ("skill/write", {"name": "kiwi", "content": TEXT, "expectedVersion": STALE},
         ErrorType.CONFIG_CONFLICT, {}),
        ("skill/read", {"name": "pipe"}, ErrorType.PROFILE_UNREADABLE, {}),
        ("skill/write", {"name": "locked", "content": TEXT}, ErrorType.CONFIG_READ_ONLY,
         {"name": "locked"}),
        ("skill/delete", {"name": "locked"}, ErrorType.CONFIG_READ_ONLY, {"name": "locked"}),
        ("skill/write", {"name": "full", "content": TEXT}, ErrorType.INTERNAL_ERROR, {}),
        ("skill/read", {"name": ""}, BAD, {"field": "params.name"}),
    ],
)  # fmt: skip
def test_each_refusal_is_its_error(harness: Any, docs: SkillDocs, method, params, kind, data):
    answer = harness.call(method, params)
    assert error_of(answer) is kind
    assert data.items() <= answer["error"]["data"].items()
    if kind is ErrorType.CONFIG_CONFLICT:
        assert len(answer["error"]["data"]["version"]) == 64
    if kind is ErrorType.PROFILE_UNREADABLE:
        assert answer["error"]["data"]["file"].endswith("pipe/SKILL.md")


def test_an_agent_with_no_skills_is_agent_unavailable(harness: Any) -> None:
    assert error_of(harness.call("skill/read", {"name": "kiwi"})) is ErrorType.AGENT_UNAVAILABLE
