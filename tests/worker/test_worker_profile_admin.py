"""worker.profile_admin: hermes' create_profile and delete_profile in a process of its
own, answering one JSON line on its stdout whatever hermes prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.home import make_home, offline_env


def make(home: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "hermes_stdio.worker.profile_admin", *args],
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout  # the answer alone
    return json.loads(lines[0])  # type: ignore[no-any-return]


def test_a_fresh_profile_is_made_with_hermes_defaults_and_its_skills_seeded(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    assert make(home, "create", "--name", "kiwi", "--description", "Fruit") == {
        "home": str(home / "profiles" / "kiwi"),
        "seeded": True,
    }
    kiwi = home / "profiles" / "kiwi"
    assert "Fruit" in (kiwi / "profile.yaml").read_text()
    assert not (kiwi / "config.yaml").exists()  # hermes' defaults
    assert make(home, "create", "--name", "lime", "--no-skills")["seeded"] is None
    assert (home / "profiles" / "lime" / ".no-bundled-skills").exists()


def test_a_clone_copies_its_sources_files(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {"K": "v"}})
    assert make(home, "create", "--name", "kiwi", "--clone-from", "work")["seeded"] is None
    kiwi = home / "profiles" / "kiwi"
    assert (kiwi / ".env").read_text() == "K=v\n"
    copied = yaml.safe_load((kiwi / "config.yaml").read_text())  # migrated to hermes' schema
    assert (
        copied["model"] == yaml.safe_load((home / "profiles/work/config.yaml").read_text())["model"]
    )


def test_what_hermes_refuses_is_answered_as_such(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {}})
    assert make(home, "create", "--name", "work")["error"] == "exists"
    assert make(home, "create", "--name", "sudo")["error"] == "invalid"  # reserved by hermes
    assert make(home, "create", "--name", "kiwi", "--clone-from", "gone")["error"] == "invalid"
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["work"]


def test_a_profile_is_deleted_as_hermes_deletes_it_and_default_never(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {}, "play": {}})
    assert make(home, "delete", "--name", "work") == {"home": str(home / "profiles" / "work")}
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["play"]
    assert make(home, "delete", "--name", "work")["error"] == "missing"
    assert make(home, "delete", "--name", "default")["error"] == "invalid"
    assert (home / "config.yaml").is_file()


def test_a_profile_is_renamed_as_hermes_renames_it_and_gets_no_alias_it_had_not(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {"K": "v"}})
    (home / "active_profile").write_text("work\n")
    assert make(home, "rename", "--name", "work", "--new-name", "job") == {
        "home": str(home / "profiles" / "job")
    }
    assert (home / "profiles" / "job" / ".env").read_text() == "K=v\n"
    assert not (home / "profiles" / "work").exists()
    assert (home / "active_profile").read_text().strip() == "job"  # hermes profile use follows
    assert not (tmp_path / "user-home" / ".local" / "bin").exists()


def test_a_renamed_profiles_alias_follows_it_when_it_had_one(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {}})
    bin_dir = tmp_path / "user-home" / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "work").write_text('#!/bin/sh\nexec hermes -p work "$@"\n')
    make(home, "rename", "--name", "work", "--new-name", "job")
    assert sorted(p.name for p in bin_dir.iterdir()) == ["job"]
    assert "-p job" in (bin_dir / "job").read_text()


def test_a_rename_hermes_refuses_is_answered_as_such_and_moves_nothing(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {}, "play": {}})
    assert make(home, "rename", "--name", "work", "--new-name", "play")["error"] == "exists"
    assert make(home, "rename", "--name", "gone", "--new-name", "job")["error"] == "missing"
    assert make(home, "rename", "--name", "work", "--new-name", "sudo")["error"] == "invalid"
    assert make(home, "rename", "--name", "default", "--new-name", "job")["error"] == "invalid"
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["play", "work"]


def test_a_profile_is_packed_without_its_secrets_and_unpacked_under_another_name(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1", profiles={"work": {"K": "secret"}})
    (home / "profiles" / "work" / "SOUL.md").write_text("Work soul\n")
    archive = str(tmp_path / "work.tar.gz")
    assert make(home, "export", "--name", "work", "--path", archive) == {"home": archive}
    assert make(home, "export", "--name", "gone", "--path", archive)["error"] == "missing"
    made = make(home, "import", "--path", archive, "--name", "kiwi")
    assert made == {"home": str(home / "profiles" / "kiwi")}
    kiwi = home / "profiles" / "kiwi"
    assert (kiwi / "SOUL.md").read_text() == "Work soul\n" and not (kiwi / ".env").exists()
    taken = make(home, "import", "--path", archive)
    assert (taken["error"], taken["name"]) == ("exists", "work")
    assert make(home, "import", "--path", archive, "--name", "sudo")["error"] == "invalid"
    default = make(home, "import", "--path", archive, "--name", "default")
    assert (default["error"], default["name"]) == ("exists", "default")
    (tmp_path / "junk.tar.gz").write_bytes(b"junk")
    junk = make(home, "import", "--path", str(tmp_path / "junk.tar.gz"))
    assert junk["error"] == "bad_archive"
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["kiwi", "work"]
