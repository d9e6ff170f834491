"""One command a host runs itself (``shell/exec``): spawned, read, bounded, ended.

Contract (``Command``; no hermes, no wire):
- ``Command(argv, on_output=None, keep=..., stdin=None, live=False,
  terminal=None)``; ``run(cwd, env, timeout_s)`` spawns argv as given (no
  shell) in a session and process group of its own, and reads its stdout and
  stderr on the calling thread until the program has exited and both are
  read. Its stdin (never ours) is ``stdin``'s bytes, written as the program
  takes them, then closed (one that exits or closes its stdin first gets no
  more: no error); without them, /dev/null.
- ``live``: its stdin stays open after ``stdin``'s bytes; ``write(data)``,
  from any thread, queues more (``"full"`` past ``MAX_BACKLOG`` bytes not yet
  taken, ``"closed"`` once its input is closed or it has exited) and
  ``close_input()`` closes it once what is queued is written.
- ``terminal=(rows, cols)``: it runs in a pseudo-terminal of that size, its
  controlling terminal, which is its stdin, stdout and stderr (its output is
  all ``stdout``; its input is live, and closing it sends the terminal's
  end-of-file, ^D); ``resize(rows, cols)`` changes the size (the program gets
  SIGWINCH), False once it has ended. A program that cannot be found or run
  raises ``FileNotFoundError`` or ``PermissionError`` before anything runs.
  Output:
  - with ``on_output``, each piece read is handed to it as text (UTF-8,
    decoded incrementally so a character split between reads stays whole,
    invalid bytes replaced) with its stream's name, in order, and nothing is
    kept;
  - otherwise the last ``keep`` bytes of each stream are kept for the outcome
    (``truncated`` says one lost its beginning).
- When the program exits, whatever it left running in its process group is
  killed, before the program is reaped (so the group's id cannot have been
  reused meanwhile); output already written is read to its end, for at most
  ``DRAIN_S`` more (a process that left the group may hold the pipes open).
- Past ``timeout_s`` (None: no limit), or once ``cancel()`` is called (from
  any thread, at any time, before ``run`` too), the group gets SIGTERM (with SIGCONT, so a
  stopped process gets it) and, ``KILL_GRACE_S`` later, SIGKILL. A cancelled
  command is never spawned if it had not been yet.
- A program that cannot be started (no such file, not executable) raises
  ``OSError`` from ``run``. ``run`` runs once.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

from .shell_feed import CTTY, READ, Feed, runnable, set_size

KILL_GRACE_S = 2.0
DRAIN_S = 1.0
MAX_BACKLOG = 1 << 20  # input queued and not yet taken by the program
Accepted = Literal["ok", "full", "closed"]

Stream = Literal["stdout", "stderr"]
Output = Callable[[Stream, str], object]  # (stream, text)


class Outcome(NamedTuple):
    returncode: int | None  # negative: the signal that ended it; None: never spawned
    timed_out: bool
    cancelled: bool
    stdout: str
    stderr: str
    truncated: bool
    duration_s: float


class Command:
    def __init__(
        self,
        argv: list[str],
        on_output: Output | None = None,
        keep: int = 1 << 20,
        stdin: bytes | None = None,
        live: bool = False,
        terminal: tuple[int, int] | None = None,
    ) -> None:
        self._argv, self._stdin = argv, stdin
        self._on_output, self._keep = on_output, keep
        self._live = live or terminal is not None
        self._terminal = terminal
        self._master = -1  # the terminal's side we hold, while open
        self._incoming = bytearray()  # written by write(), for the loop to feed
        self._backlog = 0  # what the feed still holds (the loop's count, read under the lock)
        self._input_closed = False
        self._exited = False
        self._lock = threading.Lock()
        self._cancelled = False
        self._ending_at: float | None = None  # when SIGTERM went to the group
        self._pid: int | None = None  # set while its group may be signalled (not reaped)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._closed = False  # the wake pipe is closed: its fd numbers may name other files
        self._kept: dict[Stream, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        self._cut: set[Stream] = set()
        self._decoders = {
            name: codecs.getincrementaldecoder("utf-8")("replace") for name in self._kept
        }

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._end()
            self._poke()

    def write(self, data: bytes) -> Accepted:
        with self._lock:
            if not self._takes_input():
                return "closed"
            if len(self._incoming) + self._backlog + len(data) > MAX_BACKLOG:
                return "full"
            self._incoming += data
            self._poke()
        return "ok"

    def close_input(self) -> bool:
        with self._lock:
            if not self._takes_input():
                return False
            self._input_closed = True
            self._poke()
        return True

    def _takes_input(self) -> bool:  # with _lock held
        return self._live and not (self._input_closed or self._exited or self._closed)

    @property
    def in_terminal(self) -> bool:
        return self._terminal is not None

    def resize(self, rows: int, cols: int) -> bool:
        with self._lock:
            if self._master < 0 or self._exited:
                return False
            set_size(self._master, rows, cols)
        return True

    def _poke(self) -> None:
        """Wake the reading loop (callers hold ``_lock``); a full wake pipe already will."""
        if not self._closed:
            with contextlib.suppress(BlockingIOError):
                os.write(self._wake_w, b"x")

    def _end(self) -> None:
        """SIGTERM the group at once (the reading loop may be blocked on ``on_output``);
        callers hold ``_lock``."""
        if self._ending_at is None:
            self._ending_at = time.monotonic()
            self._signal(signal.SIGTERM)
            self._signal(signal.SIGCONT)

    def _signal(self, sig: int) -> None:
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pid, sig)

    def run(self, cwd: str, env: dict[str, str], timeout_s: float | None) -> Outcome:
        start = time.monotonic()
        try:
            with self._lock:
                if self._cancelled:
                    return Outcome(None, False, True, "", "", False, 0.0)
                proc, reads, feed_fd = self._spawn(cwd, env)
                self._pid = proc.pid
            deadline = None if timeout_s is None else start + timeout_s
            timed_out = self._follow(proc, reads, feed_fd, deadline)
            with self._lock:
                self._pid = None  # reaped below: its id may be reused from now on
            code = proc.wait()
        finally:
            with self._lock:
                self._closed = True
                os.close(self._wake_r)
                os.close(self._wake_w)
                if self._master >= 0:
                    os.close(self._master)
                    self._master = -1
        stdout, stderr = (self._text(name) for name in ("stdout", "stderr"))
        duration = time.monotonic() - start
        cut = bool(self._cut)
        return Outcome(code, timed_out, self._cancelled, stdout, stderr, cut, duration)

    def _spawn(
        self, cwd: str, env: dict[str, str]
    ) -> tuple[subprocess.Popen[bytes], dict[int, Stream], int | None]:
        """The program started; the fds its output is read from, and the one its
        input goes to (ours to close; None: it has /dev/null)."""
        if self._terminal is None:
            fed = self._live or self._stdin is not None
            proc = subprocess.Popen(
                self._argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE if fed else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                close_fds=True,
                start_new_session=True,
                bufsize=0,
            )
            assert proc.stdout is not None and proc.stderr is not None
            feed_fd = None
            if proc.stdin is not None:
                feed_fd = os.dup(proc.stdin.fileno())
                proc.stdin.close()
            return proc, {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}, feed_fd
        runnable(self._argv[0], cwd, env)  # the helper would only report it as output
        master, slave = os.openpty()
        try:
            set_size(master, *self._terminal)
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", CTTY, *self._argv],
                cwd=cwd,
                env=env,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                close_fds=True,
                start_new_session=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the program's now: the end of its output is when it closes
        self._master = master
        return proc, {master: "stdout"}, os.dup(master)

    def _follow(
        self,
        proc: subprocess.Popen[bytes],
        streams: dict[int, Stream],
        feed_fd: int | None,
        deadline: float | None,
    ) -> bool:
        """Read until the program exited and its output is read; True if it timed out."""
        exited_fd = os.pidfd_open(proc.pid)
        sel = selectors.DefaultSelector()
        eof = b"\x04" if self._terminal is not None else None
        feed = Feed(feed_fd, sel, self._stdin or b"", self._live, eof)
        try:
            for fd in (*streams, exited_fd, self._wake_r):
                sel.register(fd, selectors.EVENT_READ)
            timed_out = killed = False
            drain_until: float | None = None
            while streams or drain_until is None:
                now = time.monotonic()
                due: float | None
                if drain_until is not None:  # exited
                    if now >= drain_until:
                        break  # something that left the group holds the pipes
                    due = drain_until
                else:
                    with self._lock:
                        if self._ending_at is None and deadline is not None and now >= deadline:
                            timed_out = not self._cancelled
                            self._end()
                        ending = self._ending_at
                        if ending is not None and not killed and now >= ending + KILL_GRACE_S:
                            self._signal(signal.SIGKILL)
                            killed = True
                    due = deadline if ending is None else None if killed else ending + KILL_GRACE_S
                wait = None if due is None else max(0.0, due - now)
                for key, _ in sel.select(wait):
                    fd = int(key.fd)
                    if fd in streams:
                        try:
                            data = os.read(fd, READ)
                        except OSError:  # EIO: a terminal no process holds any more
                            data = b""
                        if data:
                            self._take(streams[fd], data)
                        else:
                            sel.unregister(fd)
                            del streams[fd]
                    elif fd == feed.fd:
                        feed.write()
                        with self._lock:
                            self._backlog = feed.pending
                    elif fd == self._wake_r:
                        os.read(fd, 4096)  # cancelled (the loop sees it), or input came
                        self._take_input(feed)
                    elif fd == exited_fd:
                        sel.unregister(fd)
                        with self._lock:
                            self._exited = True
                            self._signal(signal.SIGKILL)  # what it left in its group
                        feed.close()
                        drain_until = time.monotonic() + DRAIN_S
                    # else: stdin, closed earlier in this batch (the program exited)
            return timed_out
        finally:
            feed.close()
            sel.close()
            os.close(exited_fd)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()

    def _take_input(self, feed: Feed) -> None:
        with self._lock:
            data, self._incoming = bytes(self._incoming), bytearray()
            closing = self._input_closed
        feed.add(data)
        if closing:
            feed.finish()
        with self._lock:
            self._backlog = feed.pending

    def _take(self, name: Stream, data: bytes) -> None:
        if self._on_output is not None:
            text = self._decoders[name].decode(data)
            if text:
                self._on_output(name, text)
            return
        kept = self._kept[name]
        kept += data
        if len(kept) > self._keep:
            del kept[: len(kept) - self._keep]
            self._cut.add(name)

    def _text(self, name: Stream) -> str:
        if self._on_output is not None:
            tail = self._decoders[name].decode(b"", final=True)
            if tail:
                self._on_output(name, tail)
            return ""
        kept = bytes(self._kept[name])
        if name in self._cut:  # the cut may have split a character: start at a whole one
            skip = 0
            while skip < min(3, len(kept)) and 0x80 <= kept[skip] < 0xC0:
                skip += 1
            kept = kept[skip:]
        return kept.decode("utf-8", "replace")
