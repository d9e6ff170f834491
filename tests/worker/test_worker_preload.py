"""The template's preload list: third-party and standard library modules only."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_stdio.worker import preload


def test_the_shipped_list_names_no_hermes_agent_module_and_no_module_of_ours() -> None:
    names = preload.modules()
    hermes = preload.hermes_agent_packages()
    assert "run_agent" in hermes and "tools" in hermes  # the installed distribution was read
    assert names, "the preload list is empty"
    tops = {name.split(".")[0] for name in names}
    assert not tops & hermes
    assert "hermes_stdio" not in tops
    assert "openai" in tops  # the heaviest import hermes-agent makes for its first turn


def test_comments_and_blank_lines_in_the_list_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = tmp_path / "preload.txt"
    listing.write_text("# header\n\njson\n  yaml  \n# openai\n")
    monkeypatch.setattr(preload, "LIST", listing)
    assert preload.modules() == ["json", "yaml"]


def test_a_missing_list_preloads_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preload, "LIST", tmp_path / "absent.txt")
    assert preload.modules() == []
