"""The supervisor's end of the worker template (``worker.template``).

Contract:
- ``WorkerTemplate.start()`` spawns the template (own session, our pipes, one
  end of a SOCK_SEQPACKET socketpair; it listens on nothing) and returns at
  once; the template imports in the background. Later calls do nothing.
- ``fork(options, env, cwd, cold_argv)`` asks a ready template for a worker
  with three fresh pipes and returns a ``ForkedChild``. It never waits for a
  template that is still importing (a cold spawn then is faster than waiting
  for the import and then the fork); it raises ``TemplateUnavailable`` with
  the reason when the template is not started, still starting, unsafe, gone
  or refuses, and the caller spawns cold.
- A ``ForkedChild`` acts like a ``Popen`` for ``transport.process``: ``wait``
  (from any number of threads at once) watches the child's pidfd (sent by
  the template, so it can never name a reused pid) and takes the exit status
  from the template's ``exited`` message; if the template is gone by then
  the status is unknown (None).
- A template that exits on its own, or does not answer a fork within
  ``FORK_ANSWER_S`` (it is then stopped), is started again by the next
  ``fork`` (which spawns cold meanwhile), at most ``MAX_RESTARTS`` times.
- ``stop()`` closes the socket (the template exits; forked workers are not
  affected) and stops the process with bounded waits.
- Linux only (``SUPPORTED``): it needs pidfds and /proc.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from ..protocol import workers as pw
from ..transport import relay_stderr, spawn_child, stop_child
from ..transport.log import log
from ..transport.process import UTF8_ENV
from .launch import template_command

if TYPE_CHECKING:  # imported where used: the supervisor answers initialize without them
    import socket
    import subprocess

MAX_MESSAGE = 1 << 16
FORK_ANSWER_S = 10.0
# Workers are watched through pidfds and the template closes fds through /proc.
SUPPORTED = sys.platform.startswith("linux") and hasattr(os, "pidfd_open")


class TemplateUnavailable(Exception):
    pass


class ForkedChild:
    def __init__(
        self, pid: int, pidfd: int, stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes]
    ) -> None:
        self._pid, self._pidfd = pid, pidfd
        self._pidfd_lock = threading.Lock()
        self._stdin, self._stdout, self._stderr = stdin, stdout, stderr
        self.returncode: int | None = None
        self._status = threading.Event()  # reported, or no report will ever come

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def stdin(self) -> IO[bytes]:
        return self._stdin

    @property
    def stdout(self) -> IO[bytes]:
        return self._stdout

    @property
    def stderr(self) -> IO[bytes]:
        return self._stderr

    def exited(self, status: int) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        self._status.set()

    def orphaned(self) -> None:
        """Its template is gone: it may live on, but its status will never be known."""
        self._status.set()

    def wait(self, timeout: float | None = None) -> int | None:
        # Several threads may wait at once (a stop, the exit watcher): each selects on
        # a copy of the pidfd, and the first to see the exit closes the original.
        with self._pidfd_lock:
            mine = os.dup(self._pidfd) if self._pidfd >= 0 else -1
        if mine >= 0:
            try:
                ready, _, _ = select.select([mine], [], [], timeout)
            finally:
                os.close(mine)
            if not ready:
                import subprocess

                raise subprocess.TimeoutExpired(f"pid {self._pid}", timeout or 0.0)
            self._status.wait(5.0)  # the template reaps it and reports at once
            with self._pidfd_lock:
                if self._pidfd >= 0:
                    os.close(self._pidfd)
                    self._pidfd = -1
        return self.returncode


class _Template:
    """One template process and the socket to it."""

    def __init__(self) -> None:
        self.state: pw.TemplateState = "starting"
        self.problem: str | None = None
        self.ready_info: dict[str, Any] = {}
        self.ready = threading.Event()  # ready, or never will be
        self.gone = threading.Event()  # its connection ended
        self.proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()  # one fork request at a time
        self._reply: tuple[dict[str, Any], list[int]] | None = None
        self._replied = threading.Condition()
        self._children: dict[int, ForkedChild] = {}
        self._unclaimed_exits: dict[int, int] = {}  # exited before fork() registered it
        self._children_lock = threading.Lock()

    def launch(self, python: str, env: dict[str, str]) -> None:
        """Spawn the process. Call it only once this object is where ``info()``
        looks: a template that exits at once is reported from another thread."""
        import socket

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = template_command(python, theirs.fileno())
        try:
            proc = spawn_child(argv, env, cwd="/", pass_fds=(theirs.fileno(),))
        except OSError as exc:
            self._fail("failed", f"cannot start: {exc}")
            ours.close()
            return
        finally:
            theirs.close()
        assert proc.stdout is not None
        proc.stdout.close()  # it points fd 1 at stderr first thing
        self.proc, self._sock = proc, ours
        relay_stderr(proc, "[template] ")
        threading.Thread(target=self._read, name="template", daemon=True).start()

    def _fail(self, state: pw.TemplateState, problem: str) -> None:
        if self.state in ("starting", "ready"):
            self.state, self.problem = state, problem
        self.ready.set()

    def _read(self) -> None:
        import socket

        assert self._sock is not None
        try:
            while True:
                data, fds, _flags, _addr = socket.recv_fds(self._sock, MAX_MESSAGE, 1)
                if not data:
                    break
                self._dispatch(json.loads(data), fds)
        except (OSError, ValueError) as exc:
            log(f"hermes-stdio: worker template connection: {exc}")
        self._fail("exited", "the template exited")
        pid = self.proc.pid if self.proc is not None else None
        log(f"hermes-stdio: worker template pid {pid} exited")
        with self._replied:
            self._replied.notify_all()
        with self._children_lock:
            orphans = list(self._children.values())
            self._children.clear()
        for child in orphans:
            child.orphaned()
        self.gone.set()

    def _dispatch(self, msg: dict[str, Any], fds: list[int]) -> None:
        kind = msg.get("type")
        if kind == "ready":
            self.ready_info = msg
            if msg.get("problems"):
                self._fail("unsafe", "; ".join(msg["problems"]))
                log(f"hermes-stdio: worker template unsafe: {self.problem}")
            else:
                self.state = "ready"
                self.ready.set()
                log(
                    f"hermes-stdio: worker template ready ({msg.get('modules')} modules,"
                    f" {msg.get('hermesModules')} of hermes-agent's, in {msg.get('preloadMs')} ms)"
                )
        elif kind == "exited":
            pid, status = int(msg["pid"]), int(msg["status"])
            with self._children_lock:
                child = self._children.pop(pid, None)
                if child is None:
                    self._unclaimed_exits[pid] = status
            if child is not None:
                child.exited(status)
        else:
            with self._replied:
                self._reply = (msg, fds)
                self._replied.notify_all()
            return
        for fd in fds:
            os.close(fd)

    def fork(self, request: dict[str, Any]) -> ForkedChild:
        import socket

        if not self.ready.is_set():
            raise TemplateUnavailable("the template is still starting")
        if self.state != "ready" or self._sock is None:
            raise TemplateUnavailable(f"the template is {self.state}: {self.problem}")
        with self._lock:
            pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(3)]
            theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
            ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
            try:
                with self._replied:
                    self._reply = None
                    socket.send_fds(self._sock, [json.dumps(request).encode()], theirs)
                    if not self._replied.wait_for(
                        lambda: self._reply is not None or self.state != "ready", FORK_ANSWER_S
                    ):
                        # Wedged: its late answer (or late fork) must never be taken for
                        # a later request's, so this template is done.
                        why = f"it did not answer a fork in {FORK_ANSWER_S:g}s"
                        self._fail("exited", why)
                        threading.Thread(
                            target=self.stop, name="template-stop", daemon=True
                        ).start()
                        raise TemplateUnavailable(f"the template: {why}")
                    reply = self._reply
                if reply is None:
                    raise TemplateUnavailable(f"the template is {self.state}: {self.problem}")
                msg, fds = reply
                if msg.get("type") != "forked" or len(fds) != 1:
                    for fd in fds:
                        os.close(fd)
                    raise TemplateUnavailable(str(msg.get("reason") or msg))
            except BaseException:
                for fd in ours:
                    os.close(fd)
                raise
            finally:
                for fd in theirs:
                    os.close(fd)
            child = ForkedChild(
                int(msg["pid"]),
                fds[0],
                os.fdopen(ours[0], "wb", buffering=0),
                os.fdopen(ours[1], "rb", buffering=0),
                os.fdopen(ours[2], "rb"),
            )
            with self._children_lock:
                status = self._unclaimed_exits.pop(child.pid, None)
                if status is None:
                    self._children[child.pid] = child
            if status is not None:
                child.exited(status)
            return child

    def stop(self) -> None:
        import socket

        self._fail("exited", "stopped")
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
        if self.proc is not None:
            stop_child(self.proc, grace_s=2.0, after_stdin_s=1.0, after_term_s=2.0)


class WorkerTemplate:
    MAX_RESTARTS = 3

    def __init__(self, python: str, env: dict[str, str] | Callable[[], dict[str, str]]) -> None:
        # A callable is read at each (re)start: reading every profile's .env stays
        # off the supervisor's start-up, and a restart sees the files as they are.
        self.python, self.env = python, env
        self.forks = 0
        self.restarts = 0
        self._current: _Template | None = None
        self._stopped = False
        self._lock = threading.Lock()

    def _env(self) -> dict[str, str]:
        return self.env() if callable(self.env) else self.env

    def start(self) -> None:
        with self._lock:
            if self._current is None and not self._stopped:
                self._launch()

    def _launch(self) -> None:
        # Published before it spawns, so its exit line never precedes its state.
        self._current = current = _Template()
        current.launch(self.python, self._env())

    def wait_ready(self, timeout: float) -> bool:
        """Whether it became ready (or failed) within ``timeout``; for tests and tools."""
        current = self._current
        return current is not None and current.ready.wait(timeout) and current.state == "ready"

    def wait_exited(self, timeout: float) -> bool:
        """Whether the current template's connection ended within ``timeout``."""
        current = self._current
        return current is not None and current.gone.wait(timeout)

    def fork(
        self, options: list[str], env: dict[str, str], cwd: str, cold_argv: list[str]
    ) -> ForkedChild:
        with self._lock:
            current = self._current
            if current is None:
                raise TemplateUnavailable("the template has not been started")
            if (
                current.state == "exited"
                and not self._stopped
                and self.restarts < self.MAX_RESTARTS
            ):
                self.restarts += 1
                self._launch()
                log(f"hermes-stdio: worker template exited; restart {self.restarts}")
                raise TemplateUnavailable("the template exited; it is restarting")
        request = {"type": "fork", "options": options, "env": {**env, **UTF8_ENV}, "cwd": cwd}
        request["coldArgv"] = cold_argv
        child = current.fork(request)
        with self._lock:  # forks for different profiles may run at once
            self.forks += 1
        return child

    def info(self) -> pw.TemplateInfo:
        current = self._current
        if current is None:
            return pw.TemplateInfo("starting", None, None, None, self.forks, self.restarts, None)
        ready, proc = current.ready_info, current.proc
        return pw.TemplateInfo(
            state=current.state,
            pid=proc.pid if proc is not None and current.state != "exited" else None,
            preload_ms=ready.get("preloadMs"),
            modules=ready.get("modules"),
            forks=self.forks,
            restarts=self.restarts,
            problem=current.problem,
        )

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            current = self._current
        if current is not None:
            current.stop()
