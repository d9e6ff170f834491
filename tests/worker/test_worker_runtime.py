"""Fingerprints of the agent code a worker loaded: any change on disk is noticed."""

from __future__ import annotations

import importlib.metadata
import os
import types
from pathlib import Path

import pytest

from hermes_stdio.worker import runtime
from hermes_stdio.worker.runtime import Fingerprint, loaded_files, preloaded_files


@pytest.mark.parametrize("change", ["rewrite", "touch", "replace", "remove"])
def test_a_file_rewritten_touched_replaced_or_removed_is_named(tmp_path: Path, change: str):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("x = 1\n")
    second.write_text("y = 1\n")
    loaded = Fingerprint.of([str(first), str(second)])
    assert loaded.changed() is None
    if change == "rewrite":
        second.write_text("y = 22\n")
    elif change == "touch":
        st = second.stat()
        os.utime(second, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    elif change == "replace":  # same size and mtime, a new file (a reinstall)
        st = second.stat()
        copy = tmp_path / "new.py"
        copy.write_text("y = 1\n")
        os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
        copy.replace(second)
    else:
        second.unlink()
    assert loaded.changed() == str(second)


def test_what_is_watched_is_the_loaded_module_and_its_distributions_metadata():
    import pytest as module

    files = loaded_files(module, "pytest")
    assert files[0] == module.__file__
    assert files[1].endswith("METADATA") and os.path.exists(files[1])
    bare = types.ModuleType("bare")
    assert loaded_files(bare, "no-such-distribution") == []


def test_a_distributions_metadata_is_found_once_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pytest as module

    first = loaded_files(module, "pytest")

    def gone(name: str) -> None:
        raise AssertionError(f"looked {name} up again")

    monkeypatch.setattr(importlib.metadata, "distribution", gone)
    assert loaded_files(module, "pytest") == first  # what a forked worker inherits


def test_a_remembered_metadata_path_that_an_upgrade_moved_counts_as_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "dist-1.0.dist-info" / "METADATA"
    old.parent.mkdir()
    old.write_text("Version: 1.0\n")
    monkeypatch.setitem(runtime._METADATA, "dist", str(old))
    loaded = Fingerprint.of(loaded_files(types.ModuleType("bare"), "dist"))
    assert loaded.stamps[0][0] == str(old) and loaded.changed() is None
    new = tmp_path / "dist-2.0.dist-info"
    new.mkdir()
    (new / "METADATA").write_text("Version: 2.0\n")
    old.unlink()
    old.parent.rmdir()
    assert loaded.changed() == str(old)


def test_preloaded_files_are_the_distributions_modules_and_its_metadata() -> None:
    import hermes_constants
    import tools.registry
    import yaml

    files = preloaded_files("hermes-agent", [hermes_constants, tools.registry, yaml])
    assert files[:-1] == sorted([hermes_constants.__file__, tools.registry.__file__])
    assert files[-1].endswith("METADATA")
    assert preloaded_files("hermes-agent", [yaml]) == []  # nothing of hermes: nothing to watch


def test_a_joined_fingerprint_names_a_change_in_either_part(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("a")
    b.write_text("b")
    joined = Fingerprint.of([str(a)]) + Fingerprint.of([str(b)])
    assert joined.changed() is None
    b.write_text("bb")
    assert joined.changed() == str(b)
