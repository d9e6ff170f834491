"""What a file-edit call changed: each file it names is read as the call starts
and again as it ends, and each one that differs is a FileEdit with its diff."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import events as ev
from hermes_stdio.worker import edits
from hermes_stdio.worker.callbacks import agent_callbacks
from hermes_stdio.worker.edits import MAX_DIFF_CHARS, MAX_FILE_BYTES, MAX_FILES, EditWatch


def watching(root: Path, *paths: Path) -> EditWatch:
    """A watch whose write_file calls name ``paths``; other tools name nothing."""

    def locate(name: str, args: dict[str, Any]) -> Sequence[str]:
        return [str(p) for p in paths] if name == "write_file" else []

    return EditWatch(locate, lambda: str(root))


def test_a_changed_file_is_updated_with_a_diff_naming_it_relative_to_the_workspace(
    tmp_path: Path,
) -> None:
    f = tmp_path / "src" / "app.py"
    f.parent.mkdir()
    f.write_text("x = 1\ny = 2\n")
    watch = watching(tmp_path, f)
    watch.before("c1", "write_file", {})
    f.write_text("x = 1\ny = 3\n")
    assert watch.after("c1") == [
        ev.FileEdit(
            path=str(f),
            kind="updated",
            diff="--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
        )
    ]
    assert watch.after("c1") == []  # read once per call


def test_a_made_file_is_added_and_a_removed_one_deleted_against_dev_null(tmp_path: Path) -> None:
    made, gone = tmp_path / "new.txt", tmp_path / "old.txt"
    gone.write_text("bye")  # no newline at its end
    watch = watching(tmp_path, made, gone)
    watch.before("c1", "write_file", {})
    made.write_text("hi\n")
    gone.unlink()
    assert watch.after("c1") == [
        ev.FileEdit(str(made), "added", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"),
        ev.FileEdit(
            str(gone),
            "deleted",
            "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\\ No newline at end of file\n",
        ),
    ]


def test_a_file_outside_the_workspace_is_named_as_git_names_an_absolute_path(
    tmp_path: Path,
) -> None:
    (tmp_path / "ws").mkdir()
    f = tmp_path / "elsewhere.txt"
    watch = watching(tmp_path / "ws", f)
    watch.before("c1", "write_file", {})
    f.write_text("a\n")
    [edit] = watch.after("c1")
    assert edit.diff is not None
    assert edit.diff.splitlines()[1] == "+++ b/" + str(f).lstrip("/")


def test_calls_that_change_nothing_and_tools_that_edit_nothing_have_no_edits(
    tmp_path: Path,
) -> None:
    f = tmp_path / "same.txt"
    f.write_text("same\n")
    watch = watching(tmp_path, f)
    watch.before("c1", "write_file", {})
    f.write_text("same\n")  # written, but the same
    assert watch.after("c1") == []
    watch.before("c2", "terminal", {})
    f.write_text("changed by a command\n")
    assert watch.after("c2") == []
    assert watch.after("never-started") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"\xff\xfe binary\n", b"\xff\xfe still binary\n"),
        (b"small\n", b"x" * (MAX_FILE_BYTES + 1)),
    ],
    ids=["not utf-8", "larger than the limit"],
)
def test_a_file_that_cannot_be_shown_as_text_is_reported_without_a_diff(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    f = tmp_path / "data.bin"
    f.write_bytes(before)
    watch = watching(tmp_path, f)
    watch.before("c1", "write_file", {})
    f.write_bytes(after)
    assert watch.after("c1") == [ev.FileEdit(str(f), "updated", None)]


def test_a_diff_longer_than_the_limit_is_left_out_but_the_edit_is_reported(
    tmp_path: Path,
) -> None:
    f = tmp_path / "big.txt"
    line = "y" * 1000 + "\n"
    watch = watching(tmp_path, f)
    watch.before("c1", "write_file", {})
    f.write_text(line * (MAX_DIFF_CHARS // len(line) + 1))
    assert watch.after("c1") == [ev.FileEdit(str(f), "added", None)]


def test_a_fifo_is_compared_by_its_stat_and_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    watch = watching(tmp_path, fifo)
    reading = threading.Thread(target=watch.before, args=("c1", "write_file", {}), daemon=True)
    reading.start()
    reading.join(10)
    if reading.is_alive():  # a blocking open waits for a writer: be one, and fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO blocked")
    assert watch.after("c1") == []
    watch.before("c2", "write_file", {})
    fifo.unlink()
    fifo.write_text("now a file\n")
    [edit] = watch.after("c2")
    assert (edit.kind, edit.diff) == ("updated", None)  # one side was not text


def test_a_call_watches_at_most_the_limit_of_files_once_each(tmp_path: Path) -> None:
    files = [tmp_path / f"f{i:03}" for i in range(MAX_FILES + 5)]
    watch = watching(tmp_path, files[0], *files)  # the first one named twice
    watch.before("c1", "write_file", {})
    for f in files:
        f.write_text("x\n")
    assert [e.path for e in watch.after("c1")] == [str(f) for f in files[:MAX_FILES]]


def test_a_locator_that_fails_watches_nothing_and_is_logged_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    def locate(name: str, args: dict[str, Any]) -> Sequence[str]:
        raise AttributeError("hermes moved its helper")

    watch = EditWatch(locate, lambda: str(tmp_path))
    watch.before("c1", "write_file", {})
    watch.before("c2", "write_file", {})
    assert watch.after("c1") == [] and watch.after("c2") == []
    assert capfd.readouterr().err.count("cannot tell which files") == 1


def test_calls_whose_end_never_came_are_not_kept_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edits, "MAX_OPEN_CALLS", 3)
    f = tmp_path / "f"
    watch = watching(tmp_path, f)
    for i in range(3):
        watch.before(f"lost{i}", "write_file", {})  # interrupted: no after
    watch.before("c1", "write_file", {})
    f.write_text("x\n")
    assert watch.after("lost0") == []  # forgotten
    assert [e.kind for e in watch.after("c1")] == ["added"]


def test_tool_completed_carries_the_edits_of_its_own_call(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    got: list[ev.RunEvent] = []

    class Sink:
        def delta(self, text: str) -> None: ...

        def event(self, event: ev.RunEvent) -> None:
            got.append(event)

    cb = agent_callbacks(Sink(), edits=watching(tmp_path, f))
    cb["tool_start_callback"]("w", "write_file", {"path": "notes.md"})
    cb["tool_start_callback"]("t", "terminal", {"command": "true"})
    f.write_text("hello\n")
    cb["tool_complete_callback"]("t", "terminal", {}, "ok")
    cb["tool_complete_callback"]("w", "write_file", {}, '{"bytes_written": 6}')
    done = [e for e in got if isinstance(e, ev.ToolCompletedEvent)]
    assert [(e.tool_call_id, [x.kind for x in e.edits]) for e in done] == [
        ("t", []),
        ("w", ["added"]),
    ]


def test_calls_in_progress_keep_text_up_to_the_limit_and_release_it_as_they_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edits, "MAX_HELD_CHARS", 10)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("aaaaaaaa\n")  # 9 of the 10
    b.write_text("bbbbbbbb\n")
    shared = EditWatch(lambda name, args: [str(a if args["f"] == "a" else b)], lambda: "/")
    shared.before("c1", "write_file", {"f": "a"})
    shared.before("c0", "write_file", {"f": "b"})  # no room left: compared by its stat...
    assert shared.after("c0") == []  # ...on both sides, so untouched is unchanged
    shared.before("c2", "write_file", {"f": "b"})
    a.write_text("A\n")
    b.write_text("B\n")
    assert [e.diff is not None for e in shared.after("c1")] == [True]
    assert shared.after("c2") == [ev.FileEdit(str(b), "updated", None)]
    shared.before("c3", "write_file", {"f": "b"})  # c1's room is free again
    b.write_text("BB\n")
    assert [e.diff is not None for e in shared.after("c3")] == [True]


def test_a_file_the_agent_may_not_read_is_reported_without_its_text(tmp_path: Path) -> None:
    env, odd = tmp_path / ".env", tmp_path / "odd"
    env.write_text("TOKEN=old-secret\n")

    def hidden(path: str) -> bool:
        if path == str(odd):
            raise OSError("cannot tell")  # unknown counts as hidden
        return path == str(env)

    watch = EditWatch(lambda name, args: [str(env), str(odd)], lambda: str(tmp_path), hidden)
    watch.before("c1", "write_file", {})
    env.write_text("TOKEN=new-secret\n")
    odd.write_text("x\n")
    assert watch.after("c1") == [
        ev.FileEdit(str(env), "updated", None),
        ev.FileEdit(str(odd), "added", None),
    ]


def test_a_workspace_reached_through_a_link_still_names_its_files_relative_to_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    f = tmp_path / "real" / "a.txt"  # as hermes names it: links resolved
    watch = EditWatch(lambda name, args: [str(f)], lambda: str(tmp_path / "link"))
    watch.before("c1", "write_file", {})
    f.write_text("a\n")
    [edit] = watch.after("c1")
    assert edit.diff is not None and edit.diff.startswith("--- /dev/null\n+++ b/a.txt\n")


def test_a_path_no_file_can_have_is_watched_as_missing_without_raising(tmp_path: Path) -> None:
    watch = EditWatch(lambda name, args: [f"{tmp_path}/bad\x00name"], lambda: str(tmp_path))
    watch.before("c1", "write_file", {})  # the model named it: nothing here may raise
    assert watch.after("c1") == []
