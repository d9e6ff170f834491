"""Fixtures the profile tests share: a hermes home with two named profiles."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    (root / "profiles" / "work").mkdir(parents=True)
    (root / "profiles" / "play").mkdir(parents=True)
    return root.resolve()
