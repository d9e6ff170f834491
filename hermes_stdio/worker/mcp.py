"""The profile's MCP servers, connected and closed through hermes' own machinery.

Contract (``McpServers``; the adapter hands it hermes' ``mcp_startup`` module, a
loader of ``tools.mcp_tool`` and ``listed()``, whether the profile's
config.yaml lists ``mcp_servers`` now, once hermes-agent is imported with the
profile's final environment):
- ``start()`` begins hermes' background discovery when the profile lists
  servers; with none, the MCP SDK is never imported. Once per process.
- ``wait()``, before an agent is built, waits for discovery at most hermes'
  ``mcp_discovery_timeout`` (default 1.5 s), so fast servers' tools are in the
  agent's first tool list; a slower server's tools join at a later turn
  (hermes refreshes an agent's MCP tools between turns).
- ``status()`` lists each server the profile lists now as hermes sees it:
  connected, connecting, failed, disabled, or configured (listed since the
  worker started), with its tool count and error. While an attempt is under
  way, a server hermes has not marked yet is connecting: the attempt is about
  to start it. An OAuth server (``auth: oauth``) says whether the profile
  holds its tokens (``signed_in(name)``). A server that connected and was lost since reads as
  ``mcp_live.Liveness`` knows it (hermes learns late, and then reads
  ``configured``): connecting while hermes reconnects it, failed while it has
  given up; a stdio server's exit makes hermes reconnect it at once.
- ``connect(wait_s)`` (``mcp/connect``) connects the servers the profile lists
  now that are not connected: failed ones are tried again (one whose hermes
  task has ended is started afresh), ones listed since the worker started
  are started (the MCP SDK imported then if it was not); connected ones are
  left alone. One attempt at a time, after startup's own discovery, never
  reading the worker's stdin for an OAuth login (hermes' non-interactive
  discovery, as at startup); it waits for the attempt at most
  ``wait_s``, and a slower one goes on in the background.
- ``report(reread)`` sends ``changed`` (if given) the servers' status when it
  differs from the last one sent, in order, never raising: on its own just
  before discovery starts (each server connecting, even if discovery ends at
  once) and when it ends (a thread blocked on it: no polling), when
  an ``mcp/connect`` attempt ends, when a connected server is lost or
  connects again (``Liveness``), and when the adapter calls it (after each
  turn, when a server may have dropped; with ``reread`` when the profile's
  config.yaml changed). Nothing is sent for a profile that has listed no
  servers since the start: ``reread`` reads the config again to know.
- Each stdio server runs under ``mcp_watchdog`` (hermes' parent-death
  watchdog's job, without its 2 s ``getppid`` poll), a session that ends
  fails its callers at once (``mcp_closing``) rather than at their timeout,
  and an OAuth request dropped as its session ends frees its provider's lock
  (``mcp_auth_lock``).
- ``close(timeout)`` closes every connection as hermes' CLI does on exit (a
  stdio server's stdin is closed, then it is signalled after hermes' grace),
  waiting at most ``timeout`` in all; a server that outlives that is killed by
  hermes' parent-death watchdog once the worker has exited.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, get_args

from ..protocol import toolbox as tx
from ..transport.log import log as note
from . import mcp_auth_lock, mcp_closing, mcp_watchdog
from .mcp_live import Liveness, let_go_of_ended

log = logging.getLogger("hermes_stdio.mcp")
_STATES = set(get_args(tx.McpServerState))


class McpServers:
    def __init__(
        self,
        startup: Any,
        tools: Callable[[], Any],
        listed: Callable[[], bool],
        changed: Callable[[list[tx.McpServerInfo]], None] | None = None,
        signed_in: Callable[[str], bool] = lambda name: False,
    ) -> None:
        self._startup, self._tools, self._listed = startup, tools, listed
        self._signed_in = signed_in
        self._changed = changed
        self._reported: list[tx.McpServerInfo] | None = None
        self._report_lock = threading.Lock()
        self._lock = threading.Lock()
        self._started = False
        self._configured = False
        self._connecting: threading.Thread | None = None
        self._trying = 0  # attempts under way (startup's about to start, mcp/connect's)
        self._trying_lock = threading.Lock()
        self._announced = False  # listed servers after the start: reported from then on
        self._live = Liveness(self.report)

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            self._configured = configured = self._listed()
        if configured:
            # "connecting" is told before discovery starts: a report made after could
            # come once a fast discovery has ended (a loaded machine), and skip it.
            self._attempt(+1)
            try:
                self._follow()
                self.report()
                self._startup.start_background_mcp_discovery(
                    logger=log, thread_name="mcp-discovery"
                )
            finally:
                self._attempt(-1)  # hermes' discovery is in flight from now on
            if self._changed is not None:
                follow = threading.Thread(target=self._follow_discovery, name="mcp-report")
                follow.daemon = True
                follow.start()

    def _follow(self) -> None:
        """hermes' MCP client, made to report servers lost (``Liveness``) and to wrap
        stdio servers in a watchdog that waits instead of polling (``mcp_watchdog``)."""
        tools = self._tools()
        self._live.install(tools)
        mcp_watchdog.install(tools)
        mcp_closing.install()
        mcp_auth_lock.install()

    def _follow_discovery(self) -> None:
        self._startup.join_mcp_discovery(None)
        self.report()

    def wait(self) -> None:
        if self._configured:
            self._startup.wait_for_mcp_discovery()

    def connect(self, wait_s: float) -> None:
        deadline = time.monotonic() + wait_s
        self.start()
        with self._lock:
            self._configured = self._configured or self._listed()
            if not self._configured:
                return
            attempt = self._connecting
            if attempt is None or not attempt.is_alive():
                attempt = threading.Thread(target=self._connect, name="mcp-connect", daemon=True)
                self._connecting = attempt
                attempt.start()
        attempt.join(max(0.0, deadline - time.monotonic()))

    def _connect(self) -> None:
        # Startup's discovery first: two attempts at once would start a server twice.
        self._startup.join_mcp_discovery(None)
        self._attempt(+1)
        self._follow()
        # hermes only nudges a server it holds, and one whose task ended hears nothing.
        let_go_of_ended(self._tools())
        self.report()  # what it starts is connecting
        try:
            self._startup._discover_mcp_tools_without_interactive_oauth()
        except Exception:
            log.debug("connecting MCP servers failed", exc_info=True)
        finally:
            self._attempt(-1)
        self.report()

    def report(self, reread: bool = False) -> None:
        changed = self._changed
        if changed is None:
            return
        if reread and not self._announced:  # config.yaml changed: it may list one now
            try:
                self._announced = self._listed()
            except Exception as exc:
                note(f"worker: reading the profile's MCP servers failed: {exc!r}")
        if not (self._configured or self._announced):
            return
        with self._report_lock:  # computed and sent in one go: never out of order
            try:
                now = self.status()
                if now == self._reported:
                    return
                self._reported = now
                changed(now)
            except Exception as exc:
                note(f"worker: the MCP servers' status was not sent: {exc!r}")

    def _attempt(self, change: int) -> None:
        with self._trying_lock:  # startup's and mcp/connect's may overlap
            self._trying += change

    def _attempting(self) -> bool:
        """Whether an attempt (startup's, or mcp/connect's) is under way: it tries
        each server not connected yet, before hermes marks them connecting."""
        in_flight = getattr(self._startup, "mcp_discovery_in_flight", None)
        return self._trying > 0 or bool(callable(in_flight) and in_flight())

    def _state(self, given: Any, attempting: bool) -> tx.McpServerState:
        if given not in _STATES:
            return "failed"
        return "connecting" if given == "configured" and attempting else given

    def status(self) -> list[tx.McpServerInfo]:
        if not (self._configured or self._listed()):
            return []
        attempting = self._attempting()
        tools = self._tools()
        load = getattr(tools, "_load_mcp_config", None)
        configs = load() if callable(load) else {}
        servers = []
        for s in tools.get_mcp_status():
            name = str(s.get("name", ""))
            given = self._state(s.get("status"), attempting)
            error = None if s.get("error") is None else str(s["error"])
            status, error = self._live.state(name, given, error)
            oauth = (configs.get(name) or {}).get("auth") == "oauth"
            servers.append(
                tx.McpServerInfo(
                    name=name,
                    transport=str(s.get("transport", "")),
                    status=self._state(status, False),
                    tools=int(s.get("tools") or 0) if status == given else 0,
                    error=error,
                    auth="oauth" if oauth else None,
                    signed_in=self._signed_in(name) if oauth else None,
                )
            )
        return servers

    def close(self, timeout: float) -> None:
        self._live.close()  # what stops now is the worker's doing
        if not self._configured:
            return
        deadline = time.monotonic() + timeout
        # A server still connecting is not closable yet: give discovery a moment.
        self._startup.wait_for_mcp_discovery(min(1.0, timeout / 2))
        closer = threading.Thread(
            target=self._tools().shutdown_mcp_servers, name="mcp-close", daemon=True
        )
        closer.start()
        closer.join(max(0.0, deadline - time.monotonic()))
