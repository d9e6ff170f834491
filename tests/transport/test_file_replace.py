"""transport.file_replace: a file replaced whole, at once, keeping its mode."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from hermes_stdio.transport.file_replace import flocked, replace_file


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_new_mode_and_a_replaced_one_keeps_its_own(tmp_path: Path) -> None:
    path = tmp_path / "SOUL.md"
    replace_file(path, b"first", 0o640)
    assert path.read_bytes() == b"first" and mode(path) == 0o640
    path.chmod(0o600)
    replace_file(path, b"second", 0o644)
    assert path.read_bytes() == b"second" and mode(path) == 0o600
    assert os.listdir(tmp_path) == ["SOUL.md"]  # no temporary file left


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    path = tmp_path / "SOUL.md"
    path.write_bytes(b"old")
    (tmp_path / "dir").mkdir()
    with pytest.raises(OSError):
        replace_file(tmp_path / "dir", b"new", 0o644)  # a directory cannot be renamed over
    assert path.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["SOUL.md", "dir"]


def test_flocked_lets_one_holder_in_at_a_time(tmp_path: Path) -> None:
    inside = threading.Event()
    let_go = threading.Event()
    order: list[str] = []

    def first() -> None:
        with flocked(tmp_path):
            order.append("first in")
            inside.set()
            let_go.wait(10)
            order.append("first out")

    holder = threading.Thread(target=first)
    holder.start()
    assert inside.wait(10)
    second = threading.Thread(target=lambda: _second(tmp_path, order))
    second.start()
    second.join(0.2)  # bounded: it must still be waiting for the lock
    assert second.is_alive()
    let_go.set()
    holder.join(10)
    second.join(10)
    assert order == ["first in", "first out", "second in"]


def _second(directory: Path, order: list[str]) -> None:
    with flocked(directory):
        order.append("second in")
