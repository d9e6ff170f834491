"""The bench's shared setup: which profiles each start measurement uses, and in what state."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_stdio.bench.common import Config, Ctx

pytestmark = pytest.mark.bench_smoke


def test_no_two_start_measurements_share_a_profile_and_only_fresh_ones_lack_a_database(
    tmp_path: Path,
) -> None:
    ctx = Ctx(tmp_path, Config.tiny())
    try:
        used = [
            *ctx.new_profiles,
            *ctx.ready_profiles,
            *ctx.spawned_new_profiles,
            *ctx.spawned_ready_profiles,
        ]
        names = used + ctx.fresh_profiles
        assert ctx.fresh_profiles and len(names) == len(set(names))
        profiles = ctx.home / "profiles"
        for name in names:
            assert (profiles / name / "config.yaml").exists()
            assert (profiles / name / "state.db").exists() == (name in used), name
        for db in (ctx.home / "state.db", profiles / used[0] / "state.db"):
            with sqlite3.connect(db) as con:  # hermes' own schema, not an empty file
                tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master")}
            assert "sessions" in tables, db
    finally:
        ctx.close()
