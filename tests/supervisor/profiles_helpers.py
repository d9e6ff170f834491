"""Helpers the profile tests share (tests/supervisor/test_supervisor_profiles_*.py)."""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
