"""skill_toggles on a real config.yaml: every skill is listed with whether the
profile's agents may use it, and a toggle changes hermes' lists (comments kept)
only as far as needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.worker.config_file import ConfigFile, ReadOnly, Rules, Unusable
from hermes_stdio.worker.skill_toggles import HermesSkills, SkillToggles, UnknownSkill

FOUND = [
    {"name": "pdf-tools", "description": "Read PDFs", "category": "docs"},
    {"name": "arxiv", "description": "Search papers", "category": "research"},
    {"name": "kiwi", "description": "", "category": None},
]


def normalize(values: Any) -> set[str]:
    """hermes' reading of a list of names: null is none, a bare name is one."""
    if values is None:
        return set()
    if isinstance(values, str):
        values = [values]
    return {str(v).strip() for v in values if str(v).strip()}


def toggles(path: Path, rules: Rules | None = None) -> SkillToggles:
    config = ConfigFile(path, rules or Rules())
    return SkillToggles(HermesSkills(lambda: [dict(s) for s in FOUND], normalize, lambda: config))


def enabled(t: SkillToggles) -> dict[str, bool]:
    return {s.name: s.enabled for s in t.listed()}


def test_every_skill_is_listed_by_category_then_name_with_either_list_disabling_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    lists = "  platform_disabled:\n    cli: [kiwi]\n    telegram: [pdf-tools]\n"
    path.write_text("skills:\n  disabled: arxiv\n" + lists)  # a bare name: one
    listed = toggles(path).listed()
    assert [s.name for s in listed] == ["kiwi", "pdf-tools", "arxiv"]
    assert enabled(toggles(path)) == {"kiwi": False, "pdf-tools": True, "arxiv": False}
    assert (listed[0].category, listed[1].category, listed[1].description) == (
        None,
        "docs",
        "Read PDFs",
    )


def test_disabling_adds_the_name_to_skills_disabled_keeping_the_files_comments(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nskills:\n  disabled: [kiwi]  # noisy\n")
    info = toggles(path).set_enabled("arxiv", False)
    assert (info.name, info.enabled) == ("arxiv", False)
    text = path.read_text()
    assert "# mine" in text and "# noisy" in text
    assert yaml.safe_load(text) == {"skills": {"disabled": ["kiwi", "arxiv"]}}


def test_enabling_removes_the_name_from_both_lists_and_leaves_other_platforms(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    config = {
        "skills": {
            "disabled": ["arxiv", "kiwi"],
            "platform_disabled": {"cli": ["arxiv"], "telegram": ["arxiv"]},
        }
    }
    path.write_text(yaml.safe_dump(config))
    assert toggles(path).set_enabled("arxiv", True).enabled
    assert yaml.safe_load(path.read_text()) == {
        "skills": {
            "disabled": ["kiwi"],
            "platform_disabled": {"cli": [], "telegram": ["arxiv"]},
        }
    }


def test_a_toggle_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("skills:\n  disabled: [arxiv]\n")
    before = path.stat().st_mtime_ns, path.read_bytes()
    t = toggles(path)
    assert not t.set_enabled("arxiv", False).enabled
    assert t.set_enabled("kiwi", True).enabled
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    missing = tmp_path / "none.yaml"
    assert toggles(missing).set_enabled("kiwi", True).enabled
    assert not missing.exists()  # no file made to say what the default says


def test_a_name_no_skill_has_is_unknown_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    with pytest.raises(UnknownSkill):
        toggles(path).set_enabled("arxi", False)
    assert path.read_text() == "model: m\n"


@pytest.mark.parametrize(
    "text",
    ["skills: all-off\n", "skills:\n  platform_disabled: [cli]\n"],
    ids=["skills-scalar", "platform-list"],
)
def test_a_skills_setting_hermes_does_not_read_as_lists_is_unusable_and_kept(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(Unusable):
        toggles(path).set_enabled("arxiv", False)
    with pytest.raises(Unusable):
        toggles(path).listed()
    assert path.read_text() == text


def test_a_managed_skills_list_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model: m\n")
    rules = Rules(managed=lambda: {"skills": {"disabled": ["arxiv"]}})
    with pytest.raises(ReadOnly):
        toggles(path, rules).set_enabled("kiwi", False)
    assert path.read_text() == "model: m\n"


def test_a_skill_the_managed_scope_disables_is_listed_disabled(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("skills:\n  disabled: [kiwi]\n")
    config = ConfigFile(path)

    def managed(settings: dict[str, Any]) -> dict[str, Any]:  # pins the list, as hermes merges
        settings.setdefault("skills", {})["disabled"] = ["arxiv"]
        return settings

    t = SkillToggles(HermesSkills(lambda: FOUND, normalize, lambda: config, managed))
    assert enabled(t) == {"pdf-tools": True, "arxiv": False, "kiwi": True}
    assert path.read_text() == "skills:\n  disabled: [kiwi]\n"  # the file's own is untouched
    with pytest.raises(ReadOnly) as refused:  # the managed list would still disable it
        t.set_enabled("arxiv", True)
    assert refused.value.key_path == ["skills", "disabled"]
    assert path.read_text() == "skills:\n  disabled: [kiwi]\n"
