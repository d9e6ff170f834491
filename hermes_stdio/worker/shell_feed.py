"""A command's input and terminal, for ``shell_exec``: what it is fed, as it
takes it, and the pseudo-terminal it may run in.

Contract:
- ``Feed(fd, sel, data, more, eof)`` writes ``data`` to ``fd`` (ours; None:
  the command has no input) from the reading loop, as ``fd`` takes it
  (registered in ``sel`` for writing only while something waits). With
  ``more``, ``add`` queues more until ``finish``; then ``eof`` is written (a
  terminal's ^D) or ``fd`` is closed (a pipe's end of input). A program that
  closed its input or exited takes no more: no error. ``pending`` is what
  waits.
- ``set_size(fd, rows, cols)`` sets a terminal's size.
- ``runnable(program, cwd, env)`` raises ``FileNotFoundError`` as a spawn
  would for a program not there or not executable (searched in ``env``'s
  PATH without a ``/``, else from ``cwd``).
- ``CTTY``: Python run first in a terminal's new session: the terminal
  becomes its controlling one (what /dev/tty, job control and ^C need), then
  the program replaces it, with the same pid.
"""

from __future__ import annotations

import os
import selectors
import shutil
import struct
import termios

READ = 65536
CTTY = (
    "import fcntl,os,sys,termios;fcntl.ioctl(0,termios.TIOCSCTTY,0);"
    "os.execvp(sys.argv[1],sys.argv[1:])"
)


def set_size(fd: int, rows: int, cols: int) -> None:
    import fcntl

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def runnable(program: str, cwd: str, env: dict[str, str]) -> None:
    """Raise as a spawn would for a program that is not there or not executable."""
    if "/" in program:
        path = os.path.join(cwd, program)
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise FileNotFoundError(2, "No such executable file", program)
        return
    if shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(2, "No such file in PATH", program)


class Feed:
    """The command's input (see the module's contract)."""

    def __init__(
        self,
        fd: int | None,
        sel: selectors.BaseSelector,
        data: bytes,
        more: bool,
        eof: bytes | None,
    ) -> None:
        self._sel, self._data, self._more, self._eof = sel, bytearray(data), more, eof
        self._watched = False
        self.fd = -1 if fd is None else fd
        if self.fd >= 0:
            os.set_blocking(self.fd, False)
            self._sync()

    @property
    def pending(self) -> int:
        return len(self._data)

    def add(self, data: bytes) -> None:
        if self.fd >= 0 and data:
            self._data += data
            self._sync()

    def finish(self) -> None:
        if self.fd >= 0 and self._more:
            self._more = False
            if self._eof is not None:
                self._data += self._eof
            self._sync()

    def write(self) -> None:
        try:
            sent = os.write(self.fd, self._data[:READ])
        except BlockingIOError:
            return
        except OSError:  # it closed its stdin, or exited: it takes no more
            self.close()
            return
        del self._data[:sent]
        self._sync()

    def _sync(self) -> None:
        if self._data and not self._watched:
            self._sel.register(self.fd, selectors.EVENT_WRITE)
            self._watched = True
        elif not self._data and self._watched:
            self._sel.unregister(self.fd)
            self._watched = False
        if not self._data and not self._more:
            self.close()  # a pipe's end of input; a terminal's ^D is written already

    def close(self) -> None:
        if self.fd < 0:
            return
        if self._watched:
            self._sel.unregister(self.fd)
            self._watched = False
        os.close(self.fd)
        self.fd = -1
        self._data.clear()
        self._more = False
