"""skill_files: hermes' skill scans leave out a SKILL.md or DESCRIPTION.md that is there
but is neither a regular file nor a directory, and log it once; nothing else changes.

The fakes have the shape of hermes-agent 0.19's ``agent.skill_utils`` (its
``iter_skill_index_files`` walks the tree and yields every file of that name,
sorted) and ``agent.prompt_builder`` (which imported it by name)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermes_stdio.worker import skill_files


def iter_skill_index_files(skills_dir: Path, filename: str) -> Iterator[Path]:
    found = [Path(root, filename) for root, _, files in os.walk(skills_dir) if filename in files]
    yield from sorted(found)


def fake_modules() -> tuple[SimpleNamespace, SimpleNamespace]:
    return (
        SimpleNamespace(iter_skill_index_files=iter_skill_index_files),
        SimpleNamespace(iter_skill_index_files=iter_skill_index_files),
    )


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    for name in ("apple", "jammed", "zeroed", "pear"):
        (tmp_path / "skills" / "fruit" / name).mkdir(parents=True)
    fruit = tmp_path / "skills" / "fruit"
    (fruit / "apple" / "SKILL.md").write_text("apple")
    (fruit / "pear" / "SKILL.md").write_text("pear")
    os.mkfifo(fruit / "jammed" / "SKILL.md")
    (fruit / "zeroed" / "SKILL.md").symlink_to("/dev/zero")
    (fruit / "DESCRIPTION.md").write_text("Fruit.")
    return tmp_path / "skills"


def names(paths: Iterator[Path]) -> list[str]:
    return [p.parent.name for p in paths]


def test_both_modules_scans_leave_out_fifos_and_devices_and_keep_the_rest_in_order(
    skills: Path,
) -> None:
    skill_utils, prompt_builder = fake_modules()
    assert skill_files.install(skill_utils, prompt_builder)
    for module in (skill_utils, prompt_builder):
        assert names(module.iter_skill_index_files(skills, "SKILL.md")) == ["apple", "pear"]
        assert names(module.iter_skill_index_files(skills, "DESCRIPTION.md")) == ["fruit"]


def test_a_fifo_description_is_left_out_too(skills: Path) -> None:
    skill_utils, prompt_builder = fake_modules()
    skill_files.install(skill_utils, prompt_builder)
    os.mkfifo(skills / "DESCRIPTION.md")
    found = list(prompt_builder.iter_skill_index_files(skills, "DESCRIPTION.md"))
    assert found == [skills / "fruit" / "DESCRIPTION.md"]


def test_without_the_wrapper_hermes_scan_yields_the_fifo(skills: Path) -> None:
    _, prompt_builder = fake_modules()
    assert "jammed" in names(prompt_builder.iter_skill_index_files(skills, "SKILL.md"))


def test_each_file_left_out_is_logged_once(skills: Path, capfd: pytest.CaptureFixture[str]) -> None:
    skill_utils, prompt_builder = fake_modules()
    skill_files.install(skill_utils, prompt_builder)
    capfd.readouterr()
    for _ in range(3):
        list(skill_utils.iter_skill_index_files(skills, "SKILL.md"))
    lines = capfd.readouterr().err.splitlines()
    for name in ("jammed", "zeroed"):
        said = [line for line in lines if str(skills / "fruit" / name / "SKILL.md") in line]
        assert len(said) == 1 and "left out" in said[0]  # each test has paths of its own
    assert not [line for line in lines if "apple" in line or "pear" in line]


def test_installing_twice_wraps_once() -> None:
    skill_utils, prompt_builder = fake_modules()
    assert skill_files.install(skill_utils, prompt_builder)
    wrapped = skill_utils.iter_skill_index_files
    assert skill_files.install(skill_utils, prompt_builder)
    assert skill_utils.iter_skill_index_files is wrapped is prompt_builder.iter_skill_index_files


@pytest.mark.parametrize("change", ["no scan", "prompt builder's own scan"])
def test_other_hermes_internals_are_refused_and_left_as_they_were(change: str) -> None:
    skill_utils, prompt_builder = fake_modules()
    if change == "no scan":
        del skill_utils.iter_skill_index_files
    else:
        prompt_builder.iter_skill_index_files = lambda skills_dir, filename: iter([])
    before = [vars(m).copy() for m in (skill_utils, prompt_builder)]
    assert not skill_files.install(skill_utils, prompt_builder)
    assert [vars(m) for m in (skill_utils, prompt_builder)] == before
