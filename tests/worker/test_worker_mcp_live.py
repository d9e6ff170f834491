"""``mcp_live.Liveness`` over a stand-in for hermes' ``MCPServerTask`` and the MCP
SDK's spawn, with real child processes and pidfds."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker.mcp_http_live import LOST
from hermes_stdio.worker.mcp_live import EXITED, Liveness, let_go_of_ended

WAIT_S = 10.0


class Told:
    """``changed``: counts the calls; ``wait(n)`` until there have been ``n``."""

    def __init__(self) -> None:
        self.calls = 0
        self._cond = threading.Condition()

    def __call__(self) -> None:
        with self._cond:
            self.calls += 1
            self._cond.notify_all()

    def wait(self, n: int) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: self.calls >= n, WAIT_S)


def hermes() -> tuple[Any, Any, list[subprocess.Popen[bytes]]]:
    """A fresh ``tools.mcp_tool`` stand-in (its own task class: wrapping is per
    class) and ``mcp.client.stdio`` stand-in whose spawn starts ``sleep``."""
    spawned: list[subprocess.Popen[bytes]] = []

    async def spawn() -> Any:
        proc = subprocess.Popen(["sleep", "60"])
        spawned.append(proc)
        return proc

    stdio = SimpleNamespace(_create_platform_compatible_process=spawn)

    class Task:
        __slots__ = (  # as hermes' (its servers take no attributes of ours)
            *("name", "_http", "_shutdown_event", "_recycled_reason", "_error", "_tools"),
            *("_registered_tool_names", "_config", "fail", "lifecycle", "_task", "stays"),
        )

        def __init__(self, name: str, http: bool = False) -> None:
            self.name, self._http = name, http
            self._shutdown_event = threading.Event()
            self._recycled_reason: str | None = None
            self._error: BaseException | None = None
            self._tools = ["t1"]
            self._registered_tool_names: list[str] = ["mcp__t1"]
            self._config: dict[str, Any] = {}
            self.fail: BaseException | None = None
            self.lifecycle = "reconnect"
            self._task: Any = None
            self.stays: threading.Event | None = None  # set once a connection stays up

        def _is_http(self) -> bool:
            return self._http

        async def _run_stdio(self, config: dict[str, Any]) -> str:
            await stdio._create_platform_compatible_process()
            if self.fail is not None:
                raise self.fail
            await self._discover_tools()
            return str(await self._wait_for_lifecycle_event())

        async def _run_http(self, config: dict[str, Any]) -> None:
            if self.fail is not None:
                raise self.fail
            await self._discover_tools()

        async def _discover_tools(self) -> None:
            pass

        async def _wait_for_lifecycle_event(self) -> str:
            if self.stays is not None:
                self.stays.set()
                await asyncio.Event().wait()
            return self.lifecycle

        async def _wait_for_reconnect_or_shutdown(self, timeout: float | None = None) -> str:
            return "reconnect"

        async def run(self, config: dict[str, Any]) -> None:
            """hermes' task for the server, here: one connection; one that fails on
            authorization ends it."""
            try:
                await self._run_http(config)
            except PermissionError:
                return

    reconnects: list[str] = []
    mcp_tool = SimpleNamespace(
        MCPServerTask=Task,
        _lock=threading.Lock(),
        _servers={},
        reconnect_mcp_server=reconnects.append,
        reconnects=reconnects,
        _format_connect_error=lambda exc: f"formatted: {exc}",
        _register_server_tools=lambda name, server, config: [f"mcp__{t}" for t in server._tools],
    )
    return mcp_tool, stdio, spawned


def live_with(told: Told) -> tuple[Liveness, Any, list[subprocess.Popen[bytes]]]:
    mcp_tool, stdio, spawned = hermes()
    live = Liveness(told)
    assert live.install(mcp_tool, stdio)
    return live, mcp_tool, spawned


def serving(mcp_tool: Any, name: str = "echo") -> Any:
    """A server task, held by hermes, whose stdio connection is up (its lifecycle
    wait never returns: the connection stays)."""
    server = mcp_tool.MCPServerTask(name)
    mcp_tool._servers[name] = server
    server.stays = up = threading.Event()
    threading.Thread(target=asyncio.run, args=(server._run_stdio({}),), daemon=True).start()
    assert up.wait(WAIT_S)
    return server


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait(WAIT_S)


def test_a_connected_servers_process_that_exits_reads_connecting_and_hermes_reconnects_it() -> None:
    told = Told()
    live, mcp_tool, spawned = live_with(told)
    serving(mcp_tool)
    assert live.state("echo", "connected", None) == ("connected", None)

    kill(spawned[0])
    told.wait(1)
    assert live.state("echo", "connected", None) == ("connecting", EXITED)
    assert mcp_tool.reconnects == ["echo"]
    live.close()


def test_a_server_that_connects_again_reads_as_hermes_says_and_the_host_is_told() -> None:
    told = Told()
    live, mcp_tool, spawned = live_with(told)
    server = serving(mcp_tool)
    kill(spawned[0])
    told.wait(1)

    asyncio.run(server._run_http({}))  # any transport: connected again
    told.wait(2)
    assert live.state("echo", "connected", None) == ("connected", None)
    live.close()


def test_an_exit_hermes_caused_or_of_a_server_it_no_longer_holds_is_not_acted_on() -> None:
    told = Told()
    live, mcp_tool, spawned = live_with(told)
    for name, end in (("shut", "shutdown"), ("recycled", "recycle")):
        server = mcp_tool.MCPServerTask(name)
        mcp_tool._servers[name] = server
        server.lifecycle = end
        asyncio.run(server._run_stdio({}))  # connects, then hermes ends it
    serving(mcp_tool, "dropped")
    del mcp_tool._servers["dropped"]  # connected, then hermes let it go (a config reload)
    never = mcp_tool.MCPServerTask("never")
    never.fail = OSError("cannot start")
    with pytest.raises(OSError):
        asyncio.run(never._run_stdio({}))  # its process exits before it ever connected
    for proc in spawned:
        kill(proc)
    serving(mcp_tool, "control")

    kill(spawned[-1])  # told after every exit before it was handled
    told.wait(1)
    assert mcp_tool.reconnects == ["control"] and told.calls == 1
    for name in ("shut", "recycled", "dropped", "never"):
        assert live.state(name, "connected", None) == ("connected", None)
    live.close()


def test_after_a_loss_a_failed_attempt_reads_connecting_then_failed_while_hermes_waits() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("web", http=True)
    asyncio.run(server._run_http({}))
    assert live.state("web", "connected", None) == ("connected", None)

    server.fail = ConnectionError("refused")
    with pytest.raises(ConnectionError):
        asyncio.run(server._run_http({}))
    told.wait(1)
    assert live.state("web", "configured", None) == ("connecting", "formatted: refused")

    asyncio.run(server._wait_for_reconnect_or_shutdown())  # hermes parks it, then retries
    told.wait(3)
    assert live.state("web", "configured", None) == ("connecting", "formatted: refused")
    assert told.calls == 3  # failed while parked, connecting again after
    assert live.state("web", "disabled", None) == ("disabled", None)  # hermes' word
    live.close()


def test_a_server_hermes_rebuilds_reads_connecting_until_it_connects() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("echo")
    asyncio.run(server._run_stdio({}))  # connects, then hermes rebuilds it
    told.wait(1)
    assert live.state("echo", "connected", None) == ("connecting", None)
    live.close()


def test_a_failure_of_a_server_that_never_connected_reads_as_hermes_says() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("web", http=True)
    server.fail = ConnectionError("refused")
    with pytest.raises(ConnectionError):
        asyncio.run(server._run_http({}))
    asyncio.run(server._wait_for_reconnect_or_shutdown())
    assert live.state("web", "failed", "refused") == ("failed", "refused")
    assert told.calls == 0
    live.close()


def test_a_revived_server_without_registered_tools_gets_them_registered() -> None:
    live, mcp_tool, _ = live_with(Told())
    server = mcp_tool.MCPServerTask("web", http=True)
    asyncio.run(server._run_http({}))
    mcp_tool._servers["web"] = server  # hermes holds it once connected
    server._registered_tool_names = []  # hermes dropped them when it gave up
    server._tools = ["a", "b"]
    asyncio.run(server._run_http({}))
    assert server._registered_tool_names == ["mcp__a", "mcp__b"]
    live.close()


def test_an_http_servers_given_up_event_stream_reads_connecting_and_hermes_reconnects_it() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("site", http=True)
    mcp_tool._servers["site"] = server
    asyncio.run(server._run_http({}))  # connected
    live._lost(server, LOST)
    told.wait(1)
    assert live.state("site", "connected", None) == ("connecting", LOST)
    assert mcp_tool.reconnects == ["site"]

    del mcp_tool._servers["site"]  # hermes let go of it: its own doing
    live._lost(server, LOST)
    never = mcp_tool.MCPServerTask("never", http=True)
    mcp_tool._servers["never"] = never
    live._lost(never, LOST)  # not connected yet: hermes sees its attempt fail
    assert mcp_tool.reconnects == ["site"]
    live.close()


def test_a_server_whose_task_hermes_ended_reads_failed_with_why() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("web", http=True)
    mcp_tool._servers["web"] = server
    asyncio.run(server.run({}))  # connected
    server.fail = PermissionError("token revoked")
    asyncio.run(server.run({}))  # reconnecting, it cannot renew its authorization
    told.wait(2)
    assert live.state("web", "configured", None) == ("failed", "formatted: token revoked")


def test_servers_whose_task_ended_are_let_go_of_so_discovery_starts_them_afresh() -> None:
    mcp_tool, _, _ = hermes()
    running, ended = (
        asyncio.Future[None](loop=asyncio.new_event_loop()),
        asyncio.Future[None](loop=asyncio.new_event_loop()),
    )
    ended.set_result(None)
    for name, task in (("live", running), ("gone", ended), ("other-gone", ended)):
        server = mcp_tool.MCPServerTask(name)
        server._task = task
        mcp_tool._servers[name] = server
    assert let_go_of_ended(mcp_tool, "gone") == ["gone"]
    assert let_go_of_ended(mcp_tool, "live") == []
    assert sorted(mcp_tool._servers) == ["live", "other-gone"]
    assert let_go_of_ended(mcp_tool) == ["other-gone"]
    assert list(mcp_tool._servers) == ["live"]


def test_a_server_whose_run_returned_is_let_go_of_before_its_task_is_done() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("web", http=True)
    server._task = asyncio.Future[None](loop=asyncio.new_event_loop())  # not done yet
    mcp_tool._servers["web"] = server
    server.fail = PermissionError("token revoked")
    asyncio.run(server.run({}))  # hermes gave up: its run returned, its task is not done
    assert let_go_of_ended(mcp_tool, "web") == ["web"]
    assert mcp_tool._servers == {}
    live.close()


def test_a_first_connection_is_not_told_a_reconnection_of_a_held_server_is() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = mcp_tool.MCPServerTask("web", http=True)
    asyncio.run(server._run_http({}))  # hermes' discovery registers it after this
    assert told.calls == 0
    mcp_tool._servers["web"] = server
    asyncio.run(server._run_http({}))  # connected again (a sign-in's reconnect)
    told.wait(1)
    assert told.calls == 1  # the first connection's tell would have come long before
    live.close()


def test_nothing_is_noticed_once_closed_and_its_watch_has_ended() -> None:
    told = Told()
    live, mcp_tool, _ = live_with(told)
    server = serving(mcp_tool)
    live.close()
    assert "mcp-live" not in {t.name for t in threading.enumerate()}
    server.fail = ConnectionError("refused")
    with pytest.raises(ConnectionError):
        asyncio.run(server._run_http({}))
    assert live.state("echo", "connected", None) == ("connected", None)


def test_a_hermes_without_the_steps_it_follows_is_left_unchanged() -> None:
    mcp_tool, stdio, _ = hermes()
    del mcp_tool.MCPServerTask._wait_for_reconnect_or_shutdown
    run_stdio = mcp_tool.MCPServerTask._run_stdio
    assert not Liveness(Told()).install(mcp_tool, stdio)
    assert mcp_tool.MCPServerTask._run_stdio is run_stdio
