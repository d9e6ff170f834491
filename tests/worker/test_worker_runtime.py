"""Fingerprints of the agent code a worker loaded: any change on disk is noticed."""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest

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
