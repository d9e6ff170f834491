"""``python -P -m hermes_stdio.worker.template --fd N``: forks warm workers.

Contract (the supervisor's side is ``supervisor.template``):
- fd N is our end of a SOCK_SEQPACKET socketpair; each datagram is one JSON
  object. Nothing else is read; fd 1 points at stderr from the start.
- The template imports ``preload.modules()`` under an ``ImportAudit``, builds
  the SSL contexts a worker's first agent would (``sslshare.load_ahead``:
  keyed on the environment and the CA bundle files, so a forked worker uses
  them only where its inputs are the same), compiles ``preload.patterns()``
  into ``re``'s cache, reads the code of ``preload.code_files()`` ahead
  (``codecache``: a forked worker's own imports use it), runs hermes'
  CA-bundle check once (``tlscheck.check_ahead``: a forked worker skips it
  only where its inputs are the same) and sends
  ``{"type": "ready", "pid", "modules", "hermesModules", "sslContexts",
  "patterns", "codeFiles", "bundleCheck", "preloadMs", "problems"}``.
  With problems (the imports wrote or iterated the environment, or opened a
  file outside the code roots) it refuses every fork.
- It fingerprints the files of the hermes-agent modules it imported
  (``runtime.preloaded_files``). A fork requested after any of them changed
  on disk (hermes-agent was upgraded) is refused, and the template exits: the
  supervisor starts a new one, which loads the new code. A forked worker
  watches those files too (its ``runtime_changed``).
- ``{"type": "fork", "options", "env", "cwd", "coldArgv"}`` with three fds
  (the worker's stdin, stdout, stderr) is answered by ``refused`` (with a
  ``reason``: problems, more than one thread, ``env`` differing from what
  the imports read, or hermes-agent changed on disk) or ``forked`` with the
  ``pid`` and the child's pidfd.
  The child starts a session of its own, takes the fds as 0/1/2, closes every
  other fd, replaces its environment with ``env``, changes to ``cwd`` and runs
  the worker (``worker.main.main_forked``).
- A child's exit is reaped and sent as ``{"type": "exited", "pid", "status"}``
  (the raw wait status). EOF on the socket ends the template, and so does a
  send to a supervisor that is gone (one line logged, no traceback); its
  children live on until their own stdin closes.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import re
import selectors
import socket
import sys
import threading
import time
from typing import Any

from ..transport.log import log
from . import codecache
from .audit import ImportAudit
from .preload import code_files, modules, patterns
from .runtime import Fingerprint, preloaded_files
from .sslshare import load_ahead
from .tlscheck import check_ahead

MAX_MESSAGE = 1 << 20


def _send(sock: socket.socket, msg: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(msg).encode()
    if fds:
        socket.send_fds(sock, [data], fds)
    else:
        sock.send(data)


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _compile_ahead() -> int:
    """Compile what the worker's own imports will (``re`` keeps the result)."""
    compiled = 0
    for pattern, flags in patterns():
        try:
            re.compile(pattern, flags)
            compiled += 1
        except (re.error, TypeError, ValueError, OverflowError):
            pass  # recorded on another Python: it only costs speed
    return compiled


class Template:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.audit = ImportAudit()
        self.problems: list[str] = []
        self.loaded = Fingerprint(())  # the hermes-agent files preloaded
        self.codes: codecache.Codes = {}  # what each worker imports itself, read ahead
        self.stale = False
        self.children: dict[int, int] = {}  # pidfd -> pid
        self.selector = selectors.DefaultSelector()

    def preload(self) -> None:
        names = modules()
        started = time.monotonic()
        self.audit.start()
        failed = []
        for name in names:
            try:
                importlib.import_module(name)
            except Exception as exc:  # a missing optional dependency only costs speed
                failed.append(f"{name}: {type(exc).__name__}")
        self.audit.stop()
        self.problems = self.audit.problems()
        hermes = preloaded_files("hermes-agent", list(sys.modules.values()))
        self.loaded = Fingerprint.of(hermes)
        if failed:
            log(f"worker template: not preloaded: {', '.join(failed)}")
        contexts = 0
        with contextlib.suppress(ImportError):
            from httpx._transports import default

            contexts = load_ahead(default)
        # Imported only if preloaded: a template never imports hermes' modules unaudited.
        guard = sys.modules.get("agent.ssl_guard")
        checked = guard is not None and check_ahead(guard)
        compiled = _compile_ahead()
        self.codes = codecache.load_ahead(code_files())
        # Objects that live forever stay out of the collector's way: fewer pages of
        # the shared image get written (and so copied) in the children.
        gc.collect()
        gc.freeze()
        _send(
            self.sock,
            {
                "type": "ready",
                "pid": os.getpid(),
                "modules": len(sys.modules),
                "hermesModules": max(0, len(hermes) - 1),  # less its METADATA
                "sslContexts": contexts,
                "patterns": compiled,
                "codeFiles": len(self.codes),
                "bundleCheck": checked,
                "preloadMs": round((time.monotonic() - started) * 1000, 1),
                "problems": self.problems,
            },
        )

    def serve(self) -> None:
        self.selector.register(self.sock, selectors.EVENT_READ)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.sock:
                    if not self._message() or self.stale:
                        return
                else:
                    self._reap(key.fd)

    def _message(self) -> bool:
        data, fds, _flags, _addr = socket.recv_fds(self.sock, MAX_MESSAGE, 3)
        if not data:
            return False
        try:
            msg = json.loads(data)
            if msg.get("type") != "fork" or len(fds) != 3:
                raise ValueError(f"unexpected message {str(msg)[:80]!r} with {len(fds)} fds")
            self._fork(msg, fds)
        except Exception as exc:
            _send(self.sock, {"type": "refused", "reason": f"bad fork request: {exc}"})
        finally:
            for fd in fds:
                os.close(fd)
        return True

    def _refusal(self, env: dict[str, str]) -> str | None:
        if self.problems:
            return "preloading was unsafe: " + "; ".join(self.problems)
        if (threads := _thread_count()) != 1:
            return f"the template has {threads} threads"
        differ = self.audit.mismatches(env)
        if differ:
            return "preloaded modules read environment variables that differ: " + ", ".join(differ)
        changed = self.loaded.changed()
        if changed is not None:
            self.stale = True  # exits once it has said so: a new template loads the new code
            return f"hermes-agent changed on disk since the template loaded it ({changed})"
        return None

    def _fork(self, msg: dict[str, Any], fds: list[int]) -> None:
        env = {str(k): str(v) for k, v in msg["env"].items()}
        reason = self._refusal(env)
        if reason is not None:
            _send(self.sock, {"type": "refused", "reason": reason})
            return
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._become_worker(msg, env, fds)  # never returns
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = pid
        self.selector.register(pidfd, selectors.EVENT_READ)
        _send(self.sock, {"type": "forked", "pid": pid}, [pidfd])

    def _reap(self, pidfd: int) -> None:
        pid = self.children.pop(pidfd)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        _send(self.sock, {"type": "exited", "pid": pid, "status": status})

    def _become_worker(self, msg: dict[str, Any], env: dict[str, str], fds: list[int]) -> None:
        code = 70
        try:
            os.setsid()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            keep = {0, 1, 2}
            for entry in os.listdir("/proc/self/fd"):
                if int(entry) not in keep:
                    with contextlib.suppress(OSError):
                        os.close(int(entry))
            os.environ.clear()
            os.environ.update(env)
            os.chdir(msg["cwd"])
            from . import main as worker_main

            # What a cold worker would see (hermes may look at its command line).
            sys.argv = [worker_main.__file__, *msg["options"]]
            sys.orig_argv = list(msg["coldArgv"])
            main_forked = worker_main.main_forked

            code = main_forked(
                list(msg["options"]),
                self.audit,
                list(msg["coldArgv"]),
                env,
                self.loaded,
                self.codes,
            )
        except BaseException as exc:
            log(f"worker (forked): failed to start: {exc!r}")
        finally:
            os._exit(code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hermes_stdio.worker.template")
    parser.add_argument("--fd", type=int, required=True)
    args = parser.parse_args(argv)
    os.dup2(2, 1)  # a stray print must not reach anything but our log
    from ..wire import load_fast
    from . import main as _worker_main  # noqa: F401  our own worker code, shared by every fork

    load_fast()  # outside the audit: orjson reads no environment or file of a profile

    sock = socket.socket(fileno=args.fd)
    template = Template(sock)
    try:
        template.preload()
        template.serve()
    except (BrokenPipeError, ConnectionResetError):  # the supervisor exited first
        log("worker template: the supervisor is gone; exiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
