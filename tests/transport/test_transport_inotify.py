"""transport/inotify.py: the ctypes binding reports events on real directories."""

from __future__ import annotations

from pathlib import Path

from hermes_stdio.transport import inotify


def test_inotify_reports_a_deletion_in_a_watched_directory(tmp_path: Path) -> None:
    ino = inotify.Inotify()
    try:
        wd = ino.add_watch(str(tmp_path), inotify.DELETE | inotify.ONLYDIR)
        assert wd is not None
        assert ino.add_watch(str(tmp_path / "missing"), inotify.DELETE) is None
        (tmp_path / "f").write_text("x")
        (tmp_path / "f").unlink()
        (event,) = ino.read()
        assert (event.wd, event.name, bool(event.mask & inotify.DELETE)) == (wd, "f", True)
    finally:
        ino.close()


def test_a_missing_or_plain_file_path_is_no_watch_for_a_directory_watch(tmp_path: Path) -> None:
    ino = inotify.Inotify()
    try:
        (tmp_path / "plain").write_text("x")
        mask = inotify.CREATE | inotify.ONLYDIR
        assert ino.add_watch(str(tmp_path / "plain"), mask) is None
        assert ino.add_watch(str(tmp_path / "gone" / "deeper"), mask) is None
        first = ino.add_watch(str(tmp_path), mask)
        assert first is not None and ino.add_watch(str(tmp_path), mask) == first  # one per dir
    finally:
        ino.close()
        ino.close()  # twice: no error
