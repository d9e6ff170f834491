"""What hermes learns late about its MCP servers after they connected, learned at once.

hermes notices that a connected server has gone (a stdio server's process, an
HTTP server) only when a tool call to it fails or at its next keepalive (180 s
by default); until then its status reads ``connected``. While it reconnects a
server, and after it gave up (parked until its next self-probe, 300 s, or a
reconnect request), the status reads ``configured``, as for a server never
started. So a host would show a dead server as connected for minutes, then as
never started.

Contract: ``Liveness(changed)``; ``install(mcp_tool)`` wraps hermes'
``MCPServerTask`` connection steps once (True; False, changing nothing, when one
is missing). From then on, for a server that has connected in this worker:
- its stdio process exiting while hermes still holds it (not closing it, not
  recycling it by its own idle or lifetime limits) is noticed at once through a
  pidfd (a thread blocked in ``poll``: no polling loop). It reads ``connecting``
  (error: its process exited) and hermes is asked to reconnect it (its own
  ``reconnect_mcp_server``: a new process, hermes' retries and backoff);
- an HTTP server that went away, or forgot its session, is noticed within
  seconds by the MCP SDK's standing event stream giving up (``mcp_http_live``):
  it reads ``connecting`` (error: ``mcp_http_live.LOST``) and hermes is asked
  to reconnect it, as above;
- hermes tearing a connection down to rebuild it (a failed keepalive or tool
  call, an OAuth recovery) reads ``connecting``;
- an attempt that fails reads ``connecting`` with its error while hermes tries
  again, and ``failed`` with it while hermes has given up (until its
  self-probe, or ``mcp/connect``, which asks it to reconnect) or once hermes'
  task for it has ended (an authorization it could not renew ends it), until
  ``let_go_of_ended`` drops it from hermes' table so that it starts afresh;
- once it connects again, it reads as hermes says (``connected``, its tools,
  which are registered again if hermes skipped them), and ``changed()`` is
  called.
The connections of hermes' sign-in flow (``mcp/login``'s probe of a server)
are not the server's and are not followed.
``state(name, given, error)`` is the status to show for hermes' ``given``:
ours for such a server (tools 0), hermes' otherwise and for ``disabled``.
Each change calls ``changed()`` on a thread of its own (never on hermes' MCP
loop; once for exits seen together, after all of them were handled).
``close()``: what stops from now on is the worker's doing; nothing more is
noticed, and the watch thread has ended (waited for at most ``CLOSE_S``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import select
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ..transport.log import log
from . import mcp_http_live

_MARK = "_hermes_stdio_mcp_live"
# hermes' tasks whose run has returned or raised (its servers take no attributes)
_RAN: weakref.WeakSet[Any] = weakref.WeakSet()
# The server task whose connection (stdio or HTTP) is being made in this context.
_SERVING: contextvars.ContextVar[Any] = contextvars.ContextVar("mcp_serving", default=None)
EXITED = "the server's process exited"
CLOSE_S = 1.0  # the watch only has to wake and close its pidfds
State = tuple[str, str | None]  # status, error


def let_go_of_ended(mcp_tool: Any, name: str | None = None) -> list[str]:
    """Drop from hermes' table the servers (``name``, or all) whose task has ended, so
    the next discovery starts them afresh: hermes keeps such a server and only
    nudges it to reconnect, which nothing hears (``_gone``). One whose ``run`` has
    returned counts: its ``failed`` may reach the host before its task is done.
    The names dropped."""
    with mcp_tool._lock:
        table = mcp_tool._servers
        ended = [
            n
            for n, server in table.items()
            if (name is None or n == name)
            and ((task := getattr(server, "_task", None)) is None or task in _RAN or task.done())
        ]
        for n in ended:
            del table[n]
    return ended


class Liveness:
    def __init__(self, changed: Callable[[], None]) -> None:
        self._changed = changed
        self._lock = threading.Lock()
        self._mcp: Any = None
        self._seen: set[str] = set()  # servers that have connected in this worker
        self._states: dict[str, State] = {}
        self._pids: dict[int, _Process] = {}  # by pidfd
        self._dropped: list[int] = []  # pidfds no longer followed: the watch closes them
        self._closed = False
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None

    def install(self, mcp_tool: Any, stdio: Any = None, http: Any = None) -> bool:
        """``stdio``, ``http``: the MCP SDK's ``mcp.client.stdio`` and
        ``mcp.client.streamable_http`` (imported when not given)."""
        task = getattr(mcp_tool, "MCPServerTask", None)
        steps = ("_discover_tools", "_wait_for_lifecycle_event", "_run_stdio", "_run_http", "run")
        parked = "_wait_for_reconnect_or_shutdown"
        if task is None or not all(callable(getattr(task, s, None)) for s in (*steps, parked)):
            log("worker: hermes' MCP client changed: a dropped MCP server shows late")
            return False
        self._mcp = mcp_tool
        wrapped = getattr(task, _MARK, None) is not None
        setattr(task, _MARK, self)  # the wrappers call whichever Liveness installed last
        if not wrapped:
            _wrap(task, "_discover_tools", after=lambda live, srv, _: live._connected(srv))
            _wrap(task, "_wait_for_lifecycle_event", after=Liveness._ending)
            _wrap(task, "_run_stdio", failed=Liveness._attempt_failed, serving=True)
            _wrap(task, "_run_http", failed=Liveness._attempt_failed, serving=True)
            _wrap(task, parked, before=Liveness._parked, after=Liveness._unparked)
            _wrap(task, "run", after=Liveness._gone, failed=Liveness._gone)
            _follow_spawns(task, stdio)
            mcp_http_live.install(http, lost=lambda why: _lost(task, why))
        return True

    def state(self, name: str, given: str, error: str | None) -> State:
        if given == "disabled":
            return given, error
        with self._lock:
            return self._states.get(name, (given, error))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._states.clear()
            thread = self._thread
        self._wake()
        if thread is not None and thread is not threading.current_thread():
            thread.join(CLOSE_S)

    # hermes' MCP loop calls these, through the wrappers.

    def _connected(self, server: Any) -> None:
        name = str(server.name)
        with self._lock:
            if self._closed:
                return
            again = name in self._seen
            self._seen.add(name)
            was = self._states.pop(name, None)
            for process in self._pids.values():
                process.armed = process.armed or process.server is server
        with self._mcp._lock:
            held = self._mcp._servers.get(name) is server  # not a first connection
        if held and server._tools and not server._registered_tool_names:
            # hermes revives a server it gave up on with its readiness cleared, so
            # it skips publishing the tools it just discovered: the agents would
            # have none of them.
            register = self._mcp._register_server_tools
            server._registered_tool_names = register(name, server, server._config)
        if was is not None or (again and held):  # back, or reconnected (a sign-in's, say)
            self._tell()

    def _ending(self, server: Any, why: Any) -> None:
        with self._lock:
            for fd in [fd for fd, p in self._pids.items() if p.server is server]:
                del self._pids[fd]  # hermes stops this process itself
                self._dropped.append(fd)
        self._wake()
        if why == "reconnect" and not server._shutdown_event.is_set():
            self._set(server, ("connecting", self._error(server)))

    def _attempt_failed(self, server: Any, exc: BaseException) -> None:
        self._ending(server, None)  # its process is hermes' to stop
        if not server._shutdown_event.is_set():
            self._set(server, ("connecting", self._reason(exc)))

    def _parked(self, server: Any) -> None:
        self._set(server, ("failed", self._error(server) or self._reason(server._error)))

    def _reason(self, exc: BaseException | None) -> str | None:
        """As hermes words a failed connection (nested task-group errors unwrapped)."""
        if exc is None:
            return None
        render = getattr(self._mcp, "_format_connect_error", None)
        text = str(render(exc) if callable(render) else exc).strip()
        return text or type(exc).__name__

    def _gone(self, server: Any, _: Any) -> None:
        """hermes' task for the server has ended (an authorization it could not renew
        ends it for good): it stays failed until a sign-in or a restart."""
        if (task := getattr(server, "_task", None)) is not None:
            _RAN.add(task)  # before it reads failed: see let_go_of_ended
        if not server._shutdown_event.is_set():
            self._set(server, ("failed", self._error(server) or self._reason(server._error)))

    def _unparked(self, server: Any, why: Any) -> None:
        if why != "shutdown":
            self._set(server, ("connecting", self._error(server)))

    def _error(self, server: Any) -> str | None:
        """The error the server reads with now, kept through hermes' next steps."""
        with self._lock:
            return self._states.get(str(server.name), ("", None))[1]

    def _set(self, server: Any, state: State, tell: bool = True) -> bool:
        name = str(server.name)
        with self._lock:
            if self._closed or name not in self._seen or self._states.get(name) == state:
                return False
            self._states[name] = state
        if tell:
            self._tell()
        return True

    def _tell(self) -> None:
        threading.Thread(target=self._changed, name="mcp-report", daemon=True).start()

    # The pidfd watch. hermes' own record of its servers' processes reads the main
    # thread's children only, and its MCP loop runs on another: ours comes from
    # the MCP SDK's spawn, in the context of the server task that asked for it.

    def _spawned(self, server: Any, pid: int) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                fd = os.pidfd_open(pid)
            except (AttributeError, OSError):  # gone already, or no pidfds here
                return
            self._pids[fd] = _Process(pid, server)
            if self._thread is None:
                self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                self._thread = threading.Thread(target=self._follow, name="mcp-live", daemon=True)
                self._thread.start()
        self._wake()

    def _wake(self) -> None:
        if self._wake_w >= 0:
            with contextlib.suppress(OSError):  # full: a wake is pending anyway
                os.write(self._wake_w, b"x")

    def _follow(self) -> None:
        while True:
            poller = select.poll()
            poller.register(self._wake_r, select.POLLIN)
            with self._lock:
                if self._closed:
                    break
                for fd in self._pids:
                    poller.register(fd, select.POLLIN)
            changed = False
            for fd, _ in poller.poll():
                if fd == self._wake_r:
                    with contextlib.suppress(OSError):
                        os.read(self._wake_r, 512)
                else:
                    changed = self._exited(fd) or changed
            self._close_dropped()
            if changed:  # once for all the exits seen together
                self._tell()
        with self._lock:
            self._dropped += self._pids
            self._pids.clear()
        self._close_dropped()

    def _close_dropped(self) -> None:
        # Only this thread closes pidfds: one closed under its poll could be reused.
        with self._lock:
            dropped, self._dropped = self._dropped, []
        for fd in dropped:
            os.close(fd)

    def _exited(self, fd: int) -> bool:
        """Whether the state it read with changed."""
        with self._lock:
            process = self._pids.pop(fd, None)
            if process is None:
                return False
            self._dropped.append(fd)
            if self._closed or not process.armed:
                return False  # not connected yet: hermes sees the attempt fail
        why = f"exited (pid {process.pid})"
        return self._reconnect(process.server, EXITED, why, tell=False)

    def _lost(self, server: Any, why: str) -> None:
        """A connected HTTP server's event stream broke for good (``mcp_http_live``)."""
        with self._lock:
            if self._closed or str(server.name) not in self._seen:
                return
        self._reconnect(server, why, f"is gone ({why})", tell=True)

    def _reconnect(self, server: Any, error: str, why: str, *, tell: bool) -> bool:
        """A connected server hermes still holds was lost: it reads ``connecting`` with
        ``error`` and hermes is asked to reconnect it, unless hermes is closing or
        recycling it itself. Whether the state it read with changed."""
        name = str(server.name)
        with self._mcp._lock:
            held = self._mcp._servers.get(name) is server
        ending = server._shutdown_event.is_set() or getattr(server, "_recycled_reason", None)
        if not held or ending:
            return False  # hermes' own doing
        log(f"worker: MCP server {name!r} {why}: reconnecting it")
        changed = self._set(server, ("connecting", error), tell=tell)
        try:
            self._mcp.reconnect_mcp_server(name)
        except Exception as exc:
            log(f"worker: reconnecting MCP server {name!r} failed: {exc!r}")
        return changed


def _lost(task: Any, why: str) -> None:
    server = _SERVING.get()  # the connection whose stream it was
    if server is not None:
        getattr(task, _MARK)._lost(server, why)


class _Process:
    """A stdio server's process; armed once its connection is up."""

    def __init__(self, pid: int, server: Any) -> None:
        self.pid, self.server, self.armed = pid, server, False


def _wrap(
    task: Any,
    step: str,
    *,
    before: Callable[[Liveness, Any], None] | None = None,
    after: Callable[[Liveness, Any, Any], None] | None = None,
    failed: Callable[[Liveness, Any, BaseException], None] | None = None,
    serving: bool = False,
) -> None:
    """Wrap one of ``MCPServerTask``'s coroutines to tell the installed ``Liveness``;
    a hook that raises is logged."""
    original = getattr(task, step)

    def hook(fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(getattr(task, _MARK), *args)
        except Exception as exc:
            log(f"worker: following MCP server {step} failed: {exc!r}")

    @functools.wraps(original)
    async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _signing_in():
            return await original(self, *args, **kwargs)
        if before is not None:
            hook(before, self)
        token = _SERVING.set(self) if serving else None
        try:
            result = await original(self, *args, **kwargs)
        except Exception as exc:
            if failed is not None:
                hook(failed, self, exc)
            raise
        finally:
            if token is not None:
                _SERVING.reset(token)
        if after is not None:
            hook(after, self, result)
        return result

    setattr(task, step, wrapped)


def _signing_in() -> bool:
    """Whether this is a connection of hermes' sign-in flow (``mcp/login``'s probe of
    the server, a connection of its own), not of a server hermes holds."""
    module = sys.modules.get("tools.mcp_dashboard_oauth")
    current = getattr(module, "get_dashboard_oauth_flow", None)
    return callable(current) and current() is not None


def _follow_spawns(task: Any, stdio: Any) -> None:
    """The MCP SDK's process spawn, wrapped to tell the installed ``Liveness`` which
    server task's connection (``_SERVING``) started which process."""
    if stdio is None:
        try:
            from mcp.client import stdio
        except ImportError:  # no MCP SDK: no stdio server connects
            return
    spawn = getattr(stdio, "_create_platform_compatible_process", None)
    if not callable(spawn):
        log("worker: the MCP SDK changed: a dead MCP server shows late")
        return

    @functools.wraps(spawn)
    async def spawned(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        server, pid = _SERVING.get(), getattr(process, "pid", None)
        if server is not None and isinstance(pid, int):
            try:
                getattr(task, _MARK)._spawned(server, pid)
            except Exception as exc:
                log(f"worker: following an MCP server's process failed: {exc!r}")
        return process

    stdio._create_platform_compatible_process = spawned
