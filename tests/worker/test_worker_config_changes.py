"""config_changes: a change worked out from the file as it is, on a real file, and
the edits between two settings mappings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.worker.config_changes import ATTEMPTS, applied, change, edits_between
from hermes_stdio.worker.config_file import ConfigFile, Conflict


def test_the_edits_between_two_mappings_set_what_changed_and_remove_what_went() -> None:
    before = {"a": 1, "b": {"c": [1], "d": "x"}, "e": {"f": 1}, "g": None}
    after = {"a": 1, "b": {"c": [1, 2], "h": True}, "e": 5, "g": None, "i": {"j": 1}}
    assert edits_between(before, after) == [
        (["b", "c"], [1, 2]),
        (["b", "d"], None),
        (["b", "h"], True),
        (["e"], 5),
        (["i"], {"j": 1}),
    ]
    assert edits_between(after, after) == []


def test_a_change_with_no_edits_writes_nothing_and_gives_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nagent: {max_turns: 3}\n")
    seen: list[dict[str, Any]] = []
    assert change(ConfigFile(path), lambda c: seen.append(c) or []) == {"agent": {"max_turns": 3}}
    assert path.read_text() == "# mine\nagent: {max_turns: 3}\n"
    seen[0]["agent"]["max_turns"] = 9  # a copy: the caller may change it
    assert change(ConfigFile(path), lambda c: []) == {"agent": {"max_turns": 3}}


def test_a_change_racing_other_writers_reads_again_then_gives_up(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("n: 1\n")
    others = iter(range(100))

    class Busy(ConfigFile):
        def write(self, edits: Any, expected: str | None) -> Any:
            with path.open("a") as f:  # another writer got there first
                f.write(f"m{next(others)}: 1\n")
            return super().write(edits, expected)

    def increment(settings: dict[str, Any]) -> Any:
        return [(["n"], settings["n"] + 1)]

    with pytest.raises(Conflict):
        change(Busy(path), increment)
    assert yaml.safe_load(path.read_text()) == {"n": 1, **{f"m{i}": 1 for i in range(ATTEMPTS)}}

    class Once(ConfigFile):
        raced = False

        def write(self, edits: Any, expected: str | None) -> Any:
            if not self.raced:
                self.raced = True
                path.write_text("n: 5\n")
            return super().write(edits, expected)

    assert change(Once(path), increment) == {"n": 6}  # worked out again from 5
    assert yaml.safe_load(path.read_text()) == {"n": 6}


def test_edits_applied_to_a_copy_give_the_mapping_and_leave_the_original() -> None:
    before = {"a": {"b": 1}, "c": 2}
    edits = edits_between(before, {"a": {"b": 1, "d": [3]}, "e": {"f": 4}})
    assert applied(before, edits) == {"a": {"b": 1, "d": [3]}, "e": {"f": 4}}
    assert before == {"a": {"b": 1}, "c": 2}


def test_a_check_that_refuses_the_result_stops_the_write(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("n: 1\n")

    def refuse(after: dict[str, Any]) -> None:
        assert after == {"n": 2}
        raise PermissionError("no")

    with pytest.raises(PermissionError):
        change(ConfigFile(path), lambda c: [(["n"], 2)], refuse)
    assert path.read_text() == "n: 1\n"
