"""skill_docs with hermes' real skill_manage functions, wired as the adapter wires
them, on a hermes home of the test's own: a skill's SKILL.md read, replaced,
created and deleted, and what hermes refuses."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.locks import flock_waited
from hermes_stdio.transport.file_replace import flocked
from hermes_stdio.worker.config_file import Conflict, Unusable
from hermes_stdio.worker.profile_toggles import HermesToggles
from hermes_stdio.worker.skill_docs import SkillDocs, SkillRefused, SkillTaken
from hermes_stdio.worker.skill_toggles import UnknownSkill


def skill(name: str, text: str = "Do the thing.") -> str:
    return f"---\nname: {name}\ndescription: {name} helps\n---\n\n{text}\n"


class Toggles(HermesToggles):
    def _modules(self) -> None:
        pass  # hermes' modules are imported by skill_docs itself


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    (tmp_path / "skills").mkdir()
    return tmp_path


@pytest.fixture
def cleared(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    prompt_builder = pytest.importorskip("agent.prompt_builder")
    calls: list[bool] = []
    monkeypatch.setattr(
        prompt_builder,
        "clear_skills_system_prompt_cache",
        lambda **kw: calls.append(kw["clear_snapshot"]),
    )
    return calls


@pytest.fixture
def docs(home: Path, cleared: list[bool]) -> SkillDocs:
    return Toggles().skill_docs()


def test_a_skill_is_created_read_replaced_and_deleted_clearing_hermes_prompt_cache_each_time(
    docs: SkillDocs, home: Path, cleared: list[bool]
) -> None:
    made = docs.create("kiwi", skill("kiwi"), "fruit")
    path = home / "skills" / "fruit" / "kiwi" / "SKILL.md"
    assert (made.name, made.path, made.content) == ("kiwi", str(path), skill("kiwi"))
    assert made.version == hashlib.sha256(path.read_bytes()).hexdigest()
    assert docs.read("kiwi") == made
    assert cleared == [True]

    newer = docs.write("kiwi", skill("kiwi", "Peel first."), made.version)
    assert path.read_text() == skill("kiwi", "Peel first.") == newer.content
    with pytest.raises(Conflict) as stale:
        docs.write("kiwi", skill("kiwi", "lost"), made.version)
    assert stale.value.current == newer.version
    assert docs.write("kiwi", skill("kiwi", "Any."), None).content == skill("kiwi", "Any.")
    assert len(cleared) == 3

    assert docs.delete("kiwi") == str(path)
    assert not (home / "skills" / "fruit").exists()  # hermes drops the emptied category
    for act in (lambda: docs.read("kiwi"), lambda: docs.delete("kiwi")):
        with pytest.raises(UnknownSkill):
            act()
    assert len(cleared) == 4


def test_what_hermes_refuses_names_the_param_and_changes_nothing(
    docs: SkillDocs, home: Path, cleared: list[bool]
) -> None:
    docs.create("kiwi", skill("kiwi"), None)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    for args, field in (
        (("Bad Name", skill("x"), None), "name"),
        (("ok", skill("ok"), "a/b"), "category"),
        (("ok", "no frontmatter", None), "content"),
        (("ok", skill("ok", "x" * 100_001), None), "content"),
    ):
        with pytest.raises(SkillRefused) as refused:
            docs.create(*args)  # type: ignore[arg-type]
        assert refused.value.field == field
    with pytest.raises(SkillRefused) as refused:
        docs.write("kiwi", "---\nname: kiwi\n---\n\nno description\n", None)
    assert refused.value.field == "content" and "description" in str(refused.value)
    with pytest.raises(SkillTaken):
        docs.create("kiwi", skill("kiwi"), "elsewhere")
    with pytest.raises(UnknownSkill):
        docs.write("nobody", skill("nobody"), None)
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before
    assert (home / "skills" / "kiwi" / "SKILL.md").read_text() == skill("kiwi")
    assert cleared == [True]  # the create alone


def test_a_skill_md_that_is_not_a_regular_file_is_unusable_and_never_opened(
    docs: SkillDocs, home: Path
) -> None:
    (home / "skills" / "pipe").mkdir()
    os.mkfifo(home / "skills" / "pipe" / "SKILL.md")
    done = threading.Event()

    def attempt() -> None:
        for act in (lambda: docs.read("pipe"), lambda: docs.write("pipe", skill("pipe"), None)):
            with pytest.raises(Unusable):
                act()
        done.set()

    threading.Thread(target=attempt, daemon=True).start()
    assert done.wait(10), "a FIFO SKILL.md was opened"


def test_text_that_is_not_utf8_reads_as_replacement_characters(docs: SkillDocs, home: Path) -> None:
    (home / "skills" / "raw").mkdir()
    (home / "skills" / "raw" / "SKILL.md").write_bytes(skill("raw").encode() + b"\xff\n")
    assert docs.read("raw").content.endswith("\ufffd\n")


def test_the_adapter_makes_one_skill_docs_so_requests_share_its_lock(home: Path) -> None:
    toggles: Any = Toggles()
    assert toggles.skill_docs() is toggles.skill_docs()


def _in_thread(act: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(act())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_a_version_check_and_its_write_hold_the_skill_directory_against_other_workers(
    docs: SkillDocs, home: Path
) -> None:
    made = docs.create("kiwi", skill("kiwi"), None)
    path = Path(made.path)
    with flocked(path.parent):  # another worker of the profile, mid-write
        thread, outcome = _in_thread(
            lambda: docs.write("kiwi", skill("kiwi", "mine"), made.version)
        )
        assert flock_waited(path.parent), "the write did not wait for the skill's lock"
        path.write_text(skill("kiwi", "theirs"))
    thread.join(10)
    assert isinstance(outcome[0], Conflict)
    assert path.read_text() == skill("kiwi", "theirs")


def test_a_create_holds_the_skills_directory_so_two_workers_never_make_one_name_twice(
    docs: SkillDocs, home: Path
) -> None:
    with flocked(home / "skills"):
        thread, outcome = _in_thread(lambda: docs.create("kiwi", skill("kiwi"), "fruit"))
        assert flock_waited(home / "skills"), "the create did not wait for the skills' lock"
        (home / "skills" / "kiwi").mkdir()
        (home / "skills" / "kiwi" / "SKILL.md").write_text(skill("kiwi", "theirs"))
    thread.join(10)
    assert isinstance(outcome[0], SkillTaken)
    assert not (home / "skills" / "fruit").exists()


def test_a_skill_deleted_while_a_write_waited_for_its_lock_is_unknown(
    docs: SkillDocs, home: Path
) -> None:
    made = docs.create("kiwi", skill("kiwi"), None)
    path = Path(made.path)
    with flocked(path.parent):
        thread, outcome = _in_thread(lambda: docs.write("kiwi", skill("kiwi", "mine"), None))
        assert flock_waited(path.parent)
        shutil.rmtree(path.parent)
    thread.join(10)
    assert isinstance(outcome[0], UnknownSkill)
    assert not path.parent.exists()
