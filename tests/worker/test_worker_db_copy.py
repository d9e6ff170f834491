"""db_copy: a directory copied by shutil.copytree, as hermes' export_profile copies
a profile, with its SQLite databases taken as snapshots through hermes' own
backup copy, never as a main file and a -wal of two different moments."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from hermes_stdio.worker.db_copy import snapshotting


def _live_database(path: Path) -> sqlite3.Connection:
    """A WAL database whose rows are committed but still only in its -wal, held open
    as a running worker holds its state.db."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE messages (body TEXT)")
    conn.executemany("INSERT INTO messages VALUES (?)", [(f"m{i}",) for i in range(200)])
    conn.commit()
    assert Path(f"{path}-wal").stat().st_size > 0
    return conn


@pytest.fixture
def safe_copy_db() -> object:
    backup = pytest.importorskip("hermes_cli.backup")
    return backup._safe_copy_db


def test_a_live_database_is_copied_as_one_self_contained_snapshot(
    tmp_path: Path, safe_copy_db: object
) -> None:
    real = shutil.copytree
    src = tmp_path / "work"
    (src / "sub").mkdir(parents=True)
    (src / "SOUL.md").write_text("soul")
    conn = _live_database(src / "state.db")
    _live_database(src / "sub" / "kanban.db").close()
    try:
        with snapshotting(safe_copy_db):  # type: ignore[arg-type]
            shutil.copytree(src, tmp_path / "copy", symlinks=True)
    finally:
        conn.close()
    copied = sorted(
        p.relative_to(tmp_path / "copy").as_posix() for p in (tmp_path / "copy").rglob("*")
    )
    assert copied == ["SOUL.md", "state.db", "sub", "sub/kanban.db"]
    for db in ("state.db", "sub/kanban.db"):
        alone = sqlite3.connect(tmp_path / "copy" / db)
        try:
            assert alone.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert alone.execute("SELECT count(*) FROM messages").fetchone() == (200,)
        finally:
            alone.close()
    assert shutil.copytree is real


def test_a_db_file_sqlite_cannot_read_is_copied_as_it_is_with_its_sidecars(
    tmp_path: Path,
) -> None:
    src = tmp_path / "work"
    src.mkdir()
    (src / "notes.db").write_bytes(b"not a database")
    (src / "notes.db-wal").write_bytes(b"wal")
    (src / "other.txt").write_text("x")
    with snapshotting(lambda _src, _dst: False):
        shutil.copytree(src, tmp_path / "copy")
    copy = tmp_path / "copy"
    assert (copy / "notes.db").read_bytes() == b"not a database"
    assert (copy / "notes.db-wal").read_bytes() == b"wal"
    assert (copy / "other.txt").read_text() == "x"


def test_shutil_copytree_is_itself_again_afterwards_and_a_given_copy_function_wins(
    tmp_path: Path,
) -> None:
    real = shutil.copytree
    used: list[str] = []

    def mine(src: str, dst: str) -> str:
        used.append(Path(src).name)
        return str(shutil.copy2(src, dst))

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.db").write_bytes(b"")
    with snapshotting(lambda _src, _dst: pytest.fail("not asked")):
        shutil.copytree(tmp_path / "a", tmp_path / "b", copy_function=mine)
    assert used == ["x.db"]
    assert shutil.copytree is real
