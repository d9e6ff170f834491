"""profile/export and profile/import through the real binary and real hermes-agent:
a profile packed as hermes profile export packs it (its secrets left out) and
unpacked as hermes profile import unpacks it, under the name the host gives or
the archive's own, never outside the Hermes home."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import DEFAULT_SECRET, WORK_SECRET, refused


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tf:
        return {
            m.name: (tf.extractfile(m) or io.BytesIO()).read()
            for m in tf.getmembers()
            if m.isfile()
        }


def test_a_profile_exported_without_its_secrets_imports_under_a_new_name_and_runs(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    work = home / "profiles" / "work"
    (work / "SOUL.md").write_text("You are the work assistant.\n")
    (work / "auth.json").write_text('{"token": "secret"}')
    archive = tmp_path / "out" / "work.tar.gz"
    archive.parent.mkdir()
    assert host.request("profile/export", {"name": "work", "path": str(archive)}) == {
        "path": str(archive)
    }
    packed = members(archive)
    assert packed["work/SOUL.md"] == b"You are the work assistant.\n"
    assert "work/config.yaml" in packed
    assert "work/.env" not in packed and "work/auth.json" not in packed
    assert not any(WORK_SECRET.encode() in data for data in packed.values())

    got = host.request("profile/import", {"path": str(archive), "name": "kiwi"})["profile"]
    kiwi = home / "profiles" / "kiwi"
    assert (got["name"], got["home"], got["model"]) == ("kiwi", str(kiwi), "test-model")
    assert got in host.request("profile/list")["profiles"]
    assert (kiwi / "SOUL.md").read_text() == "You are the work assistant.\n"
    assert not (kiwi / ".env").exists()
    llm.enqueue(Reply.text(["hello from kiwi"]))
    run = host.request("run/start", {"message": "hi", "profile": "kiwi"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"

    # The archive's own name, when none is given; taken names are refused.
    (home / "profiles" / "work").rename(home / "profiles" / "old-work")
    assert host.request("profile/import", {"path": str(archive)})["profile"]["name"] == "work"
    err = refused(host, "profile/import", {"path": str(archive), "name": "kiwi"})
    assert err.kind is ErrorType.PROFILE_EXISTS and err.data["profile"] == "kiwi"
    err = refused(host, "profile/import", {"path": str(archive)})
    assert err.kind is ErrorType.PROFILE_EXISTS and err.data["profile"] == "work"


def test_the_default_profile_exports_what_hermes_keeps_of_it_and_no_secret(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "default.tar.gz"
    host.request("profile/export", {"name": "default", "path": str(archive)})
    packed = members(archive)
    assert "default/config.yaml" in packed
    assert "default/.env" not in packed
    assert not any(DEFAULT_SECRET.encode() in data for data in packed.values())
    assert not any(name.startswith("default/profiles/") for name in packed)
    err = refused(host, "profile/import", {"path": str(archive)})
    assert err.kind is ErrorType.PROFILE_EXISTS and err.data["profile"] == "default"


def crafted(path: Path, names: list[str], link: bool = False) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"bad"))
        if link:
            info = tarfile.TarInfo("evil/link")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tf.addfile(info)
    return path


def test_an_archive_that_would_write_outside_its_profile_is_refused_and_writes_nothing(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    before = sorted(p.name for p in (home / "profiles").iterdir())
    cases = {
        "escape.tar.gz": (["evil/../../escaped.txt"], False),
        "absolute.tar.gz": (["/tmp/absolute-evil.txt"], False),
        "two-roots.tar.gz": (["one/config.yaml", "two/config.yaml"], False),
        "link.tar.gz": (["evil/config.yaml"], True),
    }
    for file, (names, link) in cases.items():
        archive = crafted(tmp_path / file, names, link)
        err = refused(host, "profile/import", {"path": str(archive)})
        assert err.kind is ErrorType.INVALID_PARAMS, file
        assert err.data["field"] == "params.path", file
    not_gzip = tmp_path / "plain.tar.gz"
    not_gzip.write_bytes(b"not an archive")
    err = refused(host, "profile/import", {"path": str(not_gzip)})
    assert (err.kind, err.data["field"]) == (ErrorType.INVALID_PARAMS, "params.path")
    assert sorted(p.name for p in (home / "profiles").iterdir()) == before
    assert not (home.parent / "escaped.txt").exists() and not (home / "escaped.txt").exists()


def test_export_and_import_refuse_what_they_cannot_use(host: HostClient, tmp_path: Path) -> None:
    archive = str(tmp_path / "x.tar.gz")
    for method, params, kind, field in [
        ("profile/export", {"name": "nope", "path": archive}, ErrorType.UNKNOWN_PROFILE, None),
        ("profile/export", {"name": "../work", "path": archive}, ErrorType.INVALID_PROFILE, None),
        (
            "profile/export",
            {"name": "work", "path": "rel.tar.gz"},
            ErrorType.INVALID_PARAMS,
            "params.path",
        ),
        (
            "profile/export",
            {"name": "work", "path": str(tmp_path / "x.zip")},
            ErrorType.INVALID_PARAMS,
            "params.path",
        ),
        (
            "profile/export",
            {"name": "work", "path": str(tmp_path / "no" / "x.tar.gz")},
            ErrorType.INVALID_PARAMS,
            "params.path",
        ),
        (
            "profile/import",
            {"path": str(tmp_path / "missing.tar.gz")},
            ErrorType.INVALID_PARAMS,
            "params.path",
        ),
        ("profile/import", {"path": str(tmp_path)}, ErrorType.INVALID_PARAMS, "params.path"),
        ("profile/import", {"path": "rel.tar.gz"}, ErrorType.INVALID_PARAMS, "params.path"),
    ]:
        err = refused(host, method, params)
        assert err.kind is kind, (method, params, err)
        if field is not None:
            assert err.data["field"] == field
    fifo = tmp_path / "fifo.tar.gz"
    os.mkfifo(fifo)  # would hold hermes' reader for good
    err = refused(host, "profile/import", {"path": str(fifo)})
    assert (err.kind, err.data["field"]) == (ErrorType.INVALID_PARAMS, "params.path")
    host.request("profile/export", {"name": "work", "path": archive})
    err = refused(host, "profile/import", {"path": archive, "name": "Bad Name"})
    assert err.kind is ErrorType.INVALID_PROFILE
    assert not (tmp_path / "x.zip").exists()


def test_a_running_profiles_database_is_packed_as_one_snapshot_its_sessions_in_it(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    llm.enqueue(Reply.text(["kept in the archive"]))
    run = host.request("run/start", {"message": "remember me", "profile": "work"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    # Its worker still runs, its state.db open in WAL mode with the turn in its -wal.
    assert (home / "profiles" / "work" / "state.db-wal").stat().st_size > 0
    archive = tmp_path / "work.tar.gz"
    host.request("profile/export", {"name": "work", "path": str(archive)})
    packed = members(archive)
    assert "work/state.db" in packed
    assert not [m for m in packed if m.endswith(("-wal", "-shm", "-journal"))]

    host.request("profile/import", {"path": str(archive), "name": "kiwi"})
    stored = host.request("session/listStored", {"profile": "kiwi"})["sessions"]
    assert [(s["sessionId"], s["messageCount"]) for s in stored] == [(run["sessionId"], 2)]
