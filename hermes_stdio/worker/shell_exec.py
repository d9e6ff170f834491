"""One command a host runs itself (``shell/exec``): spawned, read, bounded, ended.

Contract (``Command``; no hermes, no wire):
- ``Command(argv, on_output=None, keep=..., stdin=None)``; ``run(cwd, env,
  timeout_s)`` spawns argv as given (no shell) in a session and process group
  of its own, and reads its stdout and stderr on the calling thread until the
  program has exited and both are read. Its stdin (never ours) is ``stdin``'s
  bytes, written as the program takes them, then closed (one that exits or
  closes its stdin first gets no more: no error); without them, /dev/null.
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
- Past ``timeout_s``, or once ``cancel()`` is called (from any thread, at any
  time, before ``run`` too), the group gets SIGTERM (with SIGCONT, so a
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
import threading
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

KILL_GRACE_S = 2.0
DRAIN_S = 1.0
_READ = 65536

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
    ) -> None:
        self._argv, self._stdin = argv, stdin
        self._on_output, self._keep = on_output, keep
        self._lock = threading.Lock()
        self._cancelled = False
        self._ending_at: float | None = None  # when SIGTERM went to the group
        self._pid: int | None = None  # set while its group may be signalled (not reaped)
        self._wake_r, self._wake_w = os.pipe()
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
            if not self._closed:
                os.write(self._wake_w, b"x")  # one byte into an empty pipe never blocks

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

    def run(self, cwd: str, env: dict[str, str], timeout_s: float) -> Outcome:
        start = time.monotonic()
        try:
            with self._lock:
                if self._cancelled:
                    return Outcome(None, False, True, "", "", False, 0.0)
                proc = subprocess.Popen(
                    self._argv,
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL if self._stdin is None else subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    close_fds=True,
                    start_new_session=True,
                    bufsize=0,
                )
                self._pid = proc.pid
            timed_out = self._follow(proc, start + timeout_s)
            with self._lock:
                self._pid = None  # reaped below: its id may be reused from now on
            code = proc.wait()
        finally:
            with self._lock:
                self._closed = True
                os.close(self._wake_r)
                os.close(self._wake_w)
        stdout, stderr = (self._text(name) for name in ("stdout", "stderr"))
        duration = time.monotonic() - start
        cut = bool(self._cut)
        return Outcome(code, timed_out, self._cancelled, stdout, stderr, cut, duration)

    def _follow(self, proc: subprocess.Popen[bytes], deadline: float) -> bool:
        """Read until the program exited and its output is read; True if it timed out."""
        assert proc.stdout is not None and proc.stderr is not None
        exited_fd = os.pidfd_open(proc.pid)
        streams: dict[int, Stream] = {
            proc.stdout.fileno(): "stdout",
            proc.stderr.fileno(): "stderr",
        }
        sel = selectors.DefaultSelector()
        feed = _Feed(proc, self._stdin or b"", sel)
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
                        if self._ending_at is None and now >= deadline:
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
                        data = os.read(fd, _READ)
                        if data:
                            self._take(streams[fd], data)
                        else:
                            sel.unregister(fd)
                            del streams[fd]
                    elif fd == feed.fd:
                        feed.write()
                    elif fd == self._wake_r:
                        sel.unregister(fd)  # cancelled: the loop sees it
                    elif fd == exited_fd:
                        sel.unregister(fd)
                        feed.close()
                        with self._lock:
                            self._signal(signal.SIGKILL)  # what it left in its group
                        drain_until = time.monotonic() + DRAIN_S
                    # else: stdin, closed earlier in this batch (the program exited)
            return timed_out
        finally:
            feed.close()
            sel.close()
            os.close(exited_fd)
            proc.stdout.close()
            proc.stderr.close()

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


class _Feed:
    """The command's stdin: ``data`` written as the pipe takes it, then closed."""

    def __init__(
        self, proc: subprocess.Popen[bytes], data: bytes, sel: selectors.BaseSelector
    ) -> None:
        self._pipe, self._sel = proc.stdin, sel
        self._data = memoryview(data)
        self.fd = -1
        if self._pipe is None:
            return
        if not data:
            self._pipe.close()
            return
        self.fd = self._pipe.fileno()
        os.set_blocking(self.fd, False)
        sel.register(self.fd, selectors.EVENT_WRITE)

    def write(self) -> None:
        try:
            sent = os.write(self.fd, self._data[:_READ])
        except BlockingIOError:
            return
        except OSError:  # it closed its stdin, or exited: it takes no more
            self.close()
            return
        self._data = self._data[sent:]
        if not self._data:
            self.close()

    def close(self) -> None:
        if self._pipe is None or self._pipe.closed:
            return
        if self.fd >= 0:
            self._sel.unregister(self.fd)
            self.fd = -1
        self._pipe.close()
