"""Saved tool-scan verdicts: served only for unchanged files and the same salt; a bad cache
costs speed, never correctness. The last test checks the real hermes-agent finds exactly the
same tools with no cache, a cold cache and a warm one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_stdio.testing.home import make_home, offline_env
from hermes_stdio.worker.scancache import FileVerdicts, cache_dir


class CountingScan:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, file: Path) -> bool:
        self.calls.append(file.name)
        return "register" in file.read_text()


def files(tmp_path: Path) -> list[Path]:
    src = tmp_path / "tools"
    src.mkdir()
    (src / "a.py").write_text("registry.register('a')\n")
    (src / "b.py").write_text("x = 1\n")
    return sorted(src.glob("*.py"))


def scan_all(verdicts: FileVerdicts, paths: list[Path]) -> tuple[list[bool], CountingScan]:
    scan = CountingScan()
    wrapped: Callable[[Path], bool] = verdicts.wrap(scan)
    return [wrapped(p) for p in paths], scan


def test_saved_verdicts_answer_a_new_process_without_scanning(tmp_path: Path) -> None:
    paths, cache = files(tmp_path), tmp_path / "cache" / "scan.json"
    first = FileVerdicts(cache, "salt")
    answers, scan = scan_all(first, paths)
    assert answers == [True, False] and scan.calls == ["a.py", "b.py"]
    first.save()

    second = FileVerdicts(cache, "salt")
    answers, scan = scan_all(second, paths)
    assert answers == [True, False] and scan.calls == []
    assert (second.hits, second.misses) == (2, 0)


def test_a_file_whose_size_or_mtime_changed_is_scanned_again(tmp_path: Path) -> None:
    paths, cache = files(tmp_path), tmp_path / "scan.json"
    first = FileVerdicts(cache, "salt")
    scan_all(first, paths)
    first.save()
    paths[1].write_text("registry.register('b')\n")  # new size and content
    st = paths[0].stat()
    os.utime(paths[0], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # same size

    answers, scan = scan_all(FileVerdicts(cache, "salt"), paths)
    assert answers == [True, True] and scan.calls == ["a.py", "b.py"]


def test_a_different_salt_discards_every_saved_verdict(tmp_path: Path) -> None:
    paths, cache = files(tmp_path), tmp_path / "scan.json"
    first = FileVerdicts(cache, "hermes 0.19.0")
    scan_all(first, paths)
    first.save()
    _, scan = scan_all(FileVerdicts(cache, "hermes 0.20.0"), paths)
    assert scan.calls == ["a.py", "b.py"]


def test_a_corrupt_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    paths, cache = files(tmp_path), tmp_path / "scan.json"
    st = paths[0].stat()
    bad_contents = [
        "not json",
        "[1, 2]",
        json.dumps({"version": 1, "salt": "salt", "files": []}),
        json.dumps(
            {"version": 1, "salt": "salt", "files": {str(paths[0]): [st.st_size, "x", True]}}
        ),
        json.dumps(
            {"version": 1, "salt": "salt", "files": {str(paths[0]): [st.st_size, 0, "yes"]}}
        ),
    ]
    for text in bad_contents:
        cache.write_text(text)
        answers, scan = scan_all(FileVerdicts(cache, "salt"), paths)
        assert answers == [True, False] and scan.calls == ["a.py", "b.py"], text


def _saved(where: Path, digest: str, **payload: object) -> Path:
    path = where / f"tool-scan-{digest}.json"
    path.write_text(json.dumps({"version": 1, "files": {}, **payload}))
    return path


def test_a_save_deletes_the_verdicts_of_removed_installs_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    paths, where = files(tmp_path), tmp_path / "cache"
    where.mkdir()
    alive = tmp_path / "alive" / "registry.py"
    alive.parent.mkdir()
    alive.write_text("")
    gone = str(tmp_path / "removed-clone" / "registry.py")
    kept = [
        _saved(where, "1" * 16, salt="v", owner=str(alive)),
        _saved(where, "2" * 16, salt=f"0.19.0|{alive}|1|2|3.11.9"),  # before owners
        where / "tool-scan-corrupt.json",  # not a name this cache gives
        where / "notes.txt",
    ]
    for path in kept[2:]:
        path.write_text("{")
    unreadable = where / f"tool-scan-{'3' * 16}.json"
    unreadable.write_text("{not json")
    kept.append(unreadable)
    pruned = [
        _saved(where, "4" * 16, salt="v", owner=gone),
        _saved(where, "5" * 16, salt=f"0.19.0|{gone}|1|2|3.11.9"),
    ]
    mine = FileVerdicts(where / f"tool-scan-{'6' * 16}.json", "salt", alive)
    scan_all(mine, paths)
    mine.save()
    assert sorted(where.iterdir()) == sorted([*kept, mine.path])
    assert json.loads(mine.path.read_text())["owner"] == str(alive)
    assert all(not path.exists() for path in pruned)


def test_a_save_deletes_temp_files_over_a_day_old_but_not_newer_ones(tmp_path: Path) -> None:
    paths, where = files(tmp_path), tmp_path / "cache"
    where.mkdir()
    old, new = where / ".tmp-dead", where / ".tmp-writing"
    old.write_text("half")
    new.write_text("half")
    day_ago = old.stat().st_mtime - 86_400 - 60
    os.utime(old, (day_ago, day_ago))
    verdicts = FileVerdicts(where / "tool-scan-0000000000000000.json", "salt")
    scan_all(verdicts, paths)
    verdicts.save()
    assert sorted(p.name for p in where.iterdir()) == [
        ".tmp-writing",
        "tool-scan-0000000000000000.json",
    ]


def test_an_unwritable_cache_place_is_skipped_silently(tmp_path: Path) -> None:
    paths = files(tmp_path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    verdicts = FileVerdicts(blocker / "scan.json", "salt")
    answers, _ = scan_all(verdicts, paths)
    verdicts.save()  # must not raise
    assert answers == [True, False]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-dir", "tools"]


def test_nothing_is_rewritten_when_every_verdict_came_from_the_cache(tmp_path: Path) -> None:
    paths, cache = files(tmp_path), tmp_path / "scan.json"
    first = FileVerdicts(cache, "salt")
    scan_all(first, paths)
    first.save()
    before = cache.stat()
    again = FileVerdicts(cache, "salt")
    scan_all(again, paths)
    again.save()
    after = cache.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert [p.name for p in cache.parent.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_file_that_cannot_be_stat_ed_goes_to_the_scan_and_is_not_saved(tmp_path: Path) -> None:
    cache = tmp_path / "scan.json"
    verdicts = FileVerdicts(cache, "salt")
    missing = tmp_path / "gone.py"
    assert verdicts.wrap(lambda _p: False)(missing) is False
    verdicts.save()
    assert not cache.exists()


def test_the_cache_lives_under_xdg_cache_home_else_the_home_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert cache_dir({"XDG_CACHE_HOME": "/x/cache"}) == Path("/x/cache/hermes-stdio")
    assert cache_dir({}) == Path("/home/someone/.cache/hermes-stdio")
    # A relative XDG_CACHE_HOME is invalid (XDG spec): never a cache under the cwd.
    assert cache_dir({"XDG_CACHE_HOME": "rel/cache"}) == Path("/home/someone/.cache/hermes-stdio")


def test_with_no_home_to_be_found_there_is_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # what it does then
    assert cache_dir({"XDG_CACHE_HOME": "relative"}) is None
    assert cache_dir({"XDG_CACHE_HOME": "/abs"}) == Path("/abs/hermes-stdio")


_PROBE = """
import json, sys
from hermes_stdio.worker import shortcuts
verdicts = shortcuts.cache_tool_scan() if sys.argv[1] == "cached" else None
import run_agent  # noqa: F401  (imports and registers hermes' tool modules)
from tools.registry import registry
again = shortcuts.cache_tool_scan() if verdicts is not None else None
if verdicts is not None:
    verdicts.save()
print(json.dumps({
    "tools": sorted(registry.get_all_tool_names()),
    "hits": verdicts.hits if verdicts else None,
    "misses": verdicts.misses if verdicts else None,
    "wrapped_twice": again is not None,
}))
"""


def test_real_hermes_registers_the_same_tools_with_no_cold_or_warm_cache(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    env = offline_env(home, {"XDG_CACHE_HOME": str(tmp_path / "xdg")})

    def probe(mode: str) -> dict[str, object]:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, mode],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
        return result

    where = tmp_path / "xdg" / "hermes-stdio"
    where.mkdir(parents=True)
    gone = tmp_path / "removed-clone" / "tools" / "registry.py"
    orphan = _saved(where, "f" * 16, salt=f"0.19.0|{gone}|1|2|{sys.version}")
    plain, cold, warm = probe("plain"), probe("cached"), probe("cached")
    assert not orphan.exists()  # the cold start saved, and pruned a removed install's
    [mine] = where.glob("tool-scan-*.json")
    assert Path(json.loads(mine.read_text())["owner"]).name == "registry.py"
    assert plain["tools"] and plain["tools"] == cold["tools"] == warm["tools"]
    assert cold["hits"] == 0 and isinstance(cold["misses"], int) and cold["misses"] > 0
    assert (warm["hits"], warm["misses"]) == (cold["misses"], 0)
    assert cold["wrapped_twice"] is False
