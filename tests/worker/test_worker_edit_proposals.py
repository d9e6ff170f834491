"""What a file-edit call would change, worked out by hermes' own matcher and applier
without writing: the diffs an edit held for review shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_stdio.protocol.events import FileEdit
from hermes_stdio.worker.edit_proposals import Refused, propose


def proposed(tool: str, args: dict[str, object], root: Path) -> list[FileEdit]:
    return propose(tool, args, "review-test", str(root))


def untouched(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_write_file_proposes_the_new_content_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("a\nb\n")
    before = untouched(tmp_path)
    new = proposed("write_file", {"path": str(tmp_path / "new.txt"), "content": "x\n"}, tmp_path)
    old = proposed("write_file", {"path": str(tmp_path / "old.txt"), "content": "a\nc\n"}, tmp_path)
    assert new == [
        FileEdit(
            str(tmp_path / "new.txt"), "added", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n"
        )
    ]
    assert old == [
        FileEdit(
            str(tmp_path / "old.txt"),
            "updated",
            "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
        )
    ]
    assert untouched(tmp_path) == before and not (tmp_path / "new.txt").exists()


def test_a_replace_goes_through_hermes_matcher_and_keeps_the_files_line_endings(
    tmp_path: Path,
) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    args = {"mode": "replace", "path": str(path), "old_string": "two", "new_string": "2\nthree"}
    [edit] = proposed("patch", args, tmp_path)
    assert edit.kind == "updated"
    assert edit.diff == (
        "--- a/dos.txt\n+++ b/dos.txt\n@@ -1,2 +1,3 @@\n one\r\n-two\r\n+2\r\n+three\r\n"
    )
    assert path.read_bytes() == b"one\r\ntwo\r\n"


def test_a_call_that_would_fail_is_refused_with_hermes_reason(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("kept\n")
    keep = str(tmp_path / "keep.txt")
    refused = [
        ("patch", {"mode": "replace", "path": keep, "old_string": "absent", "new_string": "x"}),
        (
            "patch",
            {
                "mode": "replace",
                "path": str(tmp_path / "gone"),
                "old_string": "a",
                "new_string": "b",
            },
        ),
        ("patch", {"mode": "patch", "patch": "not a patch"}),
        (
            "patch",
            {
                "mode": "patch",
                "patch": f"*** Begin Patch\n*** Update File: {keep}\n@@\n-absent\n+x\n"
                "*** End Patch\n",
            },
        ),
        ("write_file", {"path": keep}),
        ("write_file", {"content": "x"}),
        ("patch", {"mode": "other", "path": keep}),
    ]
    for tool, args in refused:
        with pytest.raises(Refused) as err:
            proposed(tool, args, tmp_path)
        assert str(err.value)
    assert (tmp_path / "keep.txt").read_text() == "kept\n"


def test_a_v4a_patch_runs_hermes_applier_over_files_only_it_sees(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "old.txt").write_text("bye\n")
    (tmp_path / "moved.txt").write_text("m\n")
    before = untouched(tmp_path)
    patch = (
        "*** Begin Patch\n"
        f"*** Add File: {tmp_path}/made.txt\n+made\n"
        f"*** Update File: {tmp_path}/app.py\n@@\n x = 1\n-y = 2\n+y = 3\n"
        f"*** Delete File: {tmp_path}/old.txt\n"
        f"*** Move File: {tmp_path}/moved.txt -> {tmp_path}/there.txt\n"
        "*** End Patch\n"
    )
    edits = proposed("patch", {"mode": "patch", "patch": patch}, tmp_path)
    assert {(Path(e.path).name, e.kind) for e in edits} == {
        ("made.txt", "added"),
        ("app.py", "updated"),
        ("old.txt", "deleted"),
        ("moved.txt", "deleted"),
        ("there.txt", "added"),
    }
    by_name = {Path(e.path).name: e for e in edits}
    assert by_name["app.py"].diff == (
        "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    )
    assert by_name["old.txt"].diff == "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert untouched(tmp_path) == before


def test_a_file_too_large_to_read_is_still_proposed_without_a_diff(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("line\n" * 300_000)  # over 1 MiB
    replace = {"mode": "replace", "path": str(big), "old_string": "line", "new_string": "x"}
    v4a = f"*** Begin Patch\n*** Update File: {big}\n@@\n-line\n+x\n*** End Patch\n"
    assert proposed("patch", replace, tmp_path) == [FileEdit(str(big), "updated", None)]
    assert proposed("patch", {"mode": "patch", "patch": v4a}, tmp_path) == [
        FileEdit(str(big), "updated", None)
    ]


def test_what_a_file_kept_from_the_agent_would_hold_is_never_shown(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    [made] = proposed("write_file", {"path": str(env), "content": "TOKEN=s3cret\n"}, tmp_path)
    assert made == FileEdit(str(env), "added", None)
    env.write_text("TOKEN=old\n")
    args = {"mode": "replace", "path": str(env), "old_string": "old", "new_string": "new"}
    assert proposed("patch", args, tmp_path) == [FileEdit(str(env), "updated", None)]
