"""McpServers with fake hermes modules: discovery only for a profile that lists servers,
once; status as the wire shows it; a close that hangs is waited for a bounded time; a
connect after startup's discovery, one at a time, waited for a bounded time."""

from __future__ import annotations

import queue
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.protocol.toolbox import McpServerInfo
from hermes_stdio.worker.mcp import McpServers


class FakeStartup:
    def __init__(self) -> None:
        self.started: list[str] = []
        self.waits: list[float | None] = []

    def start_background_mcp_discovery(self, *, logger: Any, thread_name: str) -> None:
        self.started.append(thread_name)

    def wait_for_mcp_discovery(self, timeout: float | None = None) -> None:
        self.waits.append(timeout)

    # What connect() uses: startup's discovery joined first, then one attempt.
    joined: list[float | None]
    discoveries: int
    gate: threading.Event | None = None

    def join_mcp_discovery(self, timeout: float | None = None) -> bool:
        self.joined = [*getattr(self, "joined", []), timeout]
        return True

    def _discover_mcp_tools_without_interactive_oauth(self) -> None:
        self.discoveries = getattr(self, "discoveries", 0) + 1
        if self.gate is not None:
            self.gate.wait(30)


class FakeTools:
    def __init__(self, statuses: list[dict[str, Any]]) -> None:
        self.statuses = statuses
        self.release = threading.Event()
        self.closes = 0
        self._lock = threading.Lock()  # hermes' table of the servers it holds
        self._servers: dict[str, Any] = {}

    def get_mcp_status(self) -> list[dict[str, Any]]:
        return self.statuses

    def shutdown_mcp_servers(self) -> None:
        self.closes += 1
        self.release.wait(30)


def test_a_profile_without_servers_never_touches_hermes_mcp_modules() -> None:
    startup, tools = FakeStartup(), FakeTools([])
    servers = McpServers(startup, lambda: tools, lambda: False)
    servers.start()
    servers.wait()
    servers.close(1.0)
    assert servers.status() == []
    assert (startup.started, startup.waits, tools.closes) == ([], [], 0)


def test_discovery_starts_once_and_status_keeps_only_states_the_protocol_names() -> None:
    startup = FakeStartup()
    tools = FakeTools(
        [
            {"name": "a", "transport": "stdio", "tools": 3, "status": "connected"},
            {"name": "b", "transport": "http", "tools": 0, "status": "exploded", "error": "boom"},
        ]
    )
    servers = McpServers(startup, lambda: tools, lambda: True)
    servers.start()
    servers.start()
    assert startup.started == ["mcp-discovery"]
    servers.wait()
    assert startup.waits == [None]  # hermes' own bound (mcp_discovery_timeout)
    assert servers.status() == [
        McpServerInfo("a", "stdio", "connected", 3, None),
        McpServerInfo("b", "http", "failed", 0, "boom"),
    ]


def test_a_close_that_hangs_is_abandoned_after_the_timeout() -> None:
    startup, tools = FakeStartup(), FakeTools([])
    servers = McpServers(startup, lambda: tools, lambda: True)
    servers.start()
    began = time.monotonic()
    servers.close(0.5)
    took = time.monotonic() - began
    tools.release.set()
    assert tools.closes == 1
    assert took < 5.0  # bounded by the timeout, not by the hanging close (30 s)
    assert startup.waits and startup.waits[0] is not None and startup.waits[0] <= 0.5


def test_servers_listed_after_the_worker_started_show_as_hermes_reports_them() -> None:
    listed = [False]
    startup = FakeStartup()
    tools = FakeTools([{"name": "late", "transport": "stdio", "tools": 0, "status": "configured"}])
    servers = McpServers(startup, lambda: tools, lambda: listed[0])
    servers.start()
    assert servers.status() == []
    listed[0] = True  # config.yaml edited while the worker runs
    assert servers.status() == [McpServerInfo("late", "stdio", "configured", 0, None)]
    assert startup.started == []  # connecting it takes a worker/restart


def test_a_connect_tries_again_after_startups_discovery_and_one_at_a_time() -> None:
    startup, tools = FakeStartup(), FakeTools([])
    listed = [False]
    servers = McpServers(startup, lambda: tools, lambda: listed[0])
    servers.start()
    servers.connect(5.0)  # nothing listed yet: hermes' MCP modules stay untouched
    assert not hasattr(startup, "discoveries")

    listed[0] = True  # servers added to config.yaml since the worker started
    startup.gate = threading.Event()
    began = time.monotonic()
    servers.connect(0.3)  # a slow attempt: answered after the wait, still going on
    assert time.monotonic() - began < 5.0
    servers.connect(0.1)  # while it goes on: no second attempt beside it
    assert startup.discoveries == 1
    startup.gate.set()
    for attempt in [t for t in threading.enumerate() if t.name == "mcp-connect"]:
        attempt.join(5.0)
    servers.connect(5.0)  # once that one ended, a new one
    assert startup.discoveries == 2
    assert startup.joined == [None, None]  # each after startup's discovery
    tools.release.set()
    servers.close(1.0)  # servers listed since the start are closed on the way out too
    assert tools.closes == 1


def test_a_connect_lets_go_of_a_server_whose_hermes_task_ended_before_it_discovers() -> None:
    startup, tools = FakeStartup(), FakeTools([])
    ended, running = threading.Event(), threading.Event()
    ended.set()
    for name, task in (("gone", ended), ("live", running)):
        tools._servers[name] = SimpleNamespace(_task=SimpleNamespace(done=task.is_set))
    held_at_discovery: list[list[str]] = []
    discover = startup._discover_mcp_tools_without_interactive_oauth

    def discovering() -> None:
        held_at_discovery.append(sorted(tools._servers))
        discover()

    startup._discover_mcp_tools_without_interactive_oauth = discovering  # type: ignore[method-assign]
    servers = McpServers(startup, lambda: tools, lambda: True)
    servers.connect(5.0)
    assert held_at_discovery == [["live"]]  # so hermes' discovery starts "gone" afresh


class DiscoveringStartup(FakeStartup):
    """Startup whose discovery runs until ``done`` is set, as hermes' thread does."""

    def __init__(self, tools: FakeTools) -> None:
        super().__init__()
        self.tools, self.done = tools, threading.Event()

    def mcp_discovery_in_flight(self) -> bool:
        return not self.done.is_set()

    def join_mcp_discovery(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)


def status(name: str, state: str, tools: int = 0, error: str | None = None) -> dict[str, Any]:
    return {"name": name, "transport": "stdio", "tools": tools, "status": state, "error": error}


def test_startups_discovery_is_reported_as_connecting_then_as_it_ended() -> None:
    tools = FakeTools([status("a", "configured"), status("b", "connecting")])
    startup = DiscoveringStartup(tools)
    sent: queue.Queue[list[McpServerInfo]] = queue.Queue()
    servers = McpServers(startup, lambda: tools, lambda: True, sent.put)
    servers.start()
    # hermes has not marked "a" yet, but its discovery is about to start it
    assert [s.status for s in sent.get(timeout=5)] == ["connecting", "connecting"]
    tools.statuses = [status("a", "connected", 2), status("b", "failed", error="no such file")]
    startup.done.set()
    assert sent.get(timeout=5) == [
        McpServerInfo("a", "stdio", "connected", 2, None),
        McpServerInfo("b", "stdio", "failed", 0, "no such file"),
    ]
    servers.report()  # nothing changed since: nothing sent
    tools.statuses = [status("a", "configured"), status("b", "failed", error="no such file")]
    servers.report()  # "a" dropped after a turn
    assert [s.status for s in sent.get(timeout=5)] == ["configured", "failed"]
    assert sent.empty()


def test_connecting_is_reported_even_when_discovery_ends_before_any_thread_could_tell() -> None:
    tools = FakeTools([status("a", "configured")])

    class InstantStartup(DiscoveringStartup):
        """Discovery that has ended when its start returns (a loaded machine)."""

        def start_background_mcp_discovery(self, *, logger: Any, thread_name: str) -> None:
            super().start_background_mcp_discovery(logger=logger, thread_name=thread_name)
            tools.statuses = [status("a", "connected", 1)]
            self.done.set()

    sent: queue.Queue[list[McpServerInfo]] = queue.Queue()
    servers = McpServers(InstantStartup(tools), lambda: tools, lambda: True, sent.put)
    servers.start()
    assert [s.status for s in sent.get(timeout=5)] == ["connecting"]
    assert [s.status for s in sent.get(timeout=5)] == ["connected"]


def test_a_connect_attempt_is_reported_when_it_ends_and_a_failing_send_is_logged(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tools = FakeTools([status("late", "configured")])
    startup = FakeStartup()
    sent: list[list[McpServerInfo]] = []

    def send(servers: list[McpServerInfo]) -> None:
        sent.append(servers)
        if len(sent) == 1:
            raise OSError("pipe closed")

    servers = McpServers(startup, lambda: tools, lambda: True, send)
    servers.start()
    for follower in [t for t in threading.enumerate() if t.name == "mcp-report"]:
        follower.join(5.0)
    assert "pipe closed" in capfd.readouterr().err
    tools.statuses = [status("late", "connected", 1)]
    servers.connect(5.0)
    assert sent[-1] == [McpServerInfo("late", "stdio", "connected", 1, None)]


def test_a_profile_without_servers_reports_nothing() -> None:
    sent: list[list[McpServerInfo]] = []
    servers = McpServers(FakeStartup(), lambda: FakeTools([]), lambda: False, sent.append)
    servers.start()
    servers.report()
    servers.connect(1.0)
    assert sent == []


def test_servers_a_profile_lists_after_its_start_are_reported_once_its_config_is_reread(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tools = FakeTools([])
    listed: list[bool | None] = [False]

    def lists() -> bool:
        if listed[0] is None:
            raise OSError("config.yaml unreadable")
        return bool(listed[0])

    sent: list[list[McpServerInfo]] = []
    servers = McpServers(FakeStartup(), lambda: tools, lists, sent.append)
    servers.start()
    listed[0] = None
    servers.report(reread=True)  # logged, not raised
    assert "config.yaml unreadable" in capfd.readouterr().err
    listed[0] = True
    tools.statuses = [status("late", "configured")]
    servers.report()  # after a turn: the config is not read again for it
    assert sent == []
    servers.report(reread=True)
    assert sent == [[McpServerInfo("late", "stdio", "configured", 0, None)]]
    listed[0] = False
    tools.statuses = []
    servers.report(reread=True)  # it lists none again: that is a change too
    assert sent[-1] == [] and len(sent) == 2
    servers.report(reread=True)
    assert len(sent) == 2


def test_an_mcp_connect_attempt_that_overlaps_startups_start_still_shows_connecting() -> None:
    tools = FakeTools([status("a", "configured")])
    in_start, let_start_end = threading.Event(), threading.Event()
    in_discovery = threading.Event()

    class SlowStart(FakeStartup):
        def start_background_mcp_discovery(self, *, logger: Any, thread_name: str) -> None:
            in_start.set()
            let_start_end.wait(30)

        def _discover_mcp_tools_without_interactive_oauth(self) -> None:
            in_discovery.set()
            super()._discover_mcp_tools_without_interactive_oauth()

    startup = SlowStart()
    startup.gate = threading.Event()  # the connect attempt runs until the test ends it
    servers = McpServers(startup, lambda: tools, lambda: True)
    starting = threading.Thread(target=servers.start)
    starting.start()
    assert in_start.wait(5)
    servers.connect(0.0)  # its attempt goes on in the background
    assert in_discovery.wait(5)
    let_start_end.set()
    starting.join(5)
    assert [s.status for s in servers.status()] == ["connecting"]  # the attempt goes on
    startup.gate.set()
