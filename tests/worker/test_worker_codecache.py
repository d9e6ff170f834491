"""Code read ahead by the template and used by a forked worker's own imports."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from hermes_stdio.worker import codecache, preload


@pytest.fixture
def on_path(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [n for n in sys.modules if n.startswith("ahead_")]:
        del sys.modules[name]


def test_code_is_read_ahead_for_files_not_imported_yet_and_nothing_is_written(
    on_path: Path,
) -> None:
    source = on_path / "ahead_a.py"
    source.write_text("VALUE = 1\n")
    codes = codecache.load_ahead(
        [str(source), str(on_path / "missing.py"), str(on_path / "data.txt"), codecache.__file__]
    )
    assert list(codes) == [str(source)]  # not the missing file, the non-source, nor one loaded
    stamp, code = codes[str(source)]
    assert stamp == (source.stat().st_mtime_ns, source.stat().st_size)
    assert code.co_filename == str(source)
    assert not (on_path / "__pycache__").exists()


def test_an_import_in_use_takes_the_code_read_ahead_once_and_a_changed_file_from_disk(
    on_path: Path,
) -> None:
    a, b = on_path / "ahead_b.py", on_path / "ahead_c.py"
    a.write_text("VALUE = 'disk'\n")
    b.write_text("VALUE = 'disk'\n")
    stamp_a = (a.stat().st_mtime_ns, a.stat().st_size)
    # Code that differs from the files, so the test sees which one ran.
    ahead = compile("VALUE = 'ahead'\n", str(a), "exec")
    codes: codecache.Codes = {str(a): (stamp_a, ahead), str(b): ((0, 0), ahead)}
    own_before = "get_code" in SourceFileLoader.__dict__
    with codecache.use(codes):
        assert importlib.import_module("ahead_b").VALUE == "ahead"
        assert str(a) not in codes  # used once
        assert importlib.import_module("ahead_c").VALUE == "disk"  # its stamp differs
    assert codes == {}  # what was left is dropped
    assert ("get_code" in SourceFileLoader.__dict__) is own_before  # the loader is as it was
    del sys.modules["ahead_b"]
    assert importlib.import_module("ahead_b").VALUE == "disk"  # outside: as usual


def test_the_shipped_code_list_names_files_of_the_installed_hermes_agent() -> None:
    files = preload.code_files()
    assert len(files) > 50
    assert all(Path(f).is_file() for f in files), [f for f in files if not Path(f).is_file()]
    assert any(f.endswith("/run_agent.py") for f in files)  # loads the profile's .env


def test_a_missing_code_list_reads_nothing_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preload, "CODE", tmp_path / "absent.txt")
    assert preload.code_files() == []
