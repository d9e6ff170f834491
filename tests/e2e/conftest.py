"""End-to-end fixtures: the real ``hermes-stdio`` binary, real workers, real hermes-agent,
and the project's scripted LLM on 127.0.0.1.

Every host started through ``start_host`` is checked at teardown: each notification it
received must be a documented server notification whose params decode against the
declared type, and the wire must have stayed well-framed.
"""

from __future__ import annotations

import os
import queue
import select
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from hermes_stdio.protocol import SERVER_NOTIFICATIONS, decode
from hermes_stdio.testing.home import make_home, offline_env
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.testing.processes import wait_gone as wait_gone  # the e2e tests take it from here
from hermes_stdio.transport import inotify
from hermes_stdio.wire import Invalid, Notification, RpcError

BINARY = str(Path(sys.executable).with_name("hermes-stdio"))
WORK_SECRET = "work-secret-value"
DEFAULT_SECRET = "default-secret-value"


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def llm(llm_server: ScriptedLLM) -> Iterator[ScriptedLLM]:
    llm_server.clear()
    yield llm_server
    llm_server.clear()


@pytest.fixture
def home(tmp_path: Path, llm_server: ScriptedLLM) -> Path:
    return make_home(
        tmp_path,
        llm_server.base_url,
        profiles={"work": {"WORK_SECRET": WORK_SECRET}, "play": {}},
        default_env={"DEFAULT_SECRET": DEFAULT_SECRET},
    )


def compress_under_new_ids(home: Path) -> None:
    """``compression.in_place: false``: hermes ends a compressed session's database row
    and goes on under a new id (a ``parent_session_id`` chain); the host keeps its id."""
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["compression"] = {"in_place": False}
    (home / "config.yaml").write_text(yaml.safe_dump(config))


def answered(host: HostClient, llm: ScriptedLLM, message: str, answer: str, **params: Any) -> str:
    """One turn the model answers with ``answer``; its session's id."""
    llm.enqueue(Reply.text([answer]))
    run = host.request("run/start", {"message": message, **params})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    return str(run["sessionId"])


def compressed_conversation(host: HostClient, llm: ScriptedLLM, answer_one: str) -> str:
    """Four exchanges (the second answered ``answer_one``, which hermes summarises),
    a forced compression, then "after compression mango": the host's id for it all."""
    sid = answered(host, llm, "question 0", "answer 0")
    for i in range(1, 4):  # enough turns for hermes to summarise the middle ones
        answered(host, llm, f"question {i}", answer_one if i == 1 else f"answer {i}", sessionId=sid)
    llm.enqueue(Reply.text(["the user asked four questions"]), Reply.text(["fine"]))
    run = host.request("run/start", {"sessionId": sid, "message": "go", "forceCompress": True})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    answered(host, llm, "after compression mango", "noted", sessionId=sid)
    return sid


def assert_wire_clean(host: HostClient) -> None:
    assert not [line for line in host.stderr_lines if line.startswith("CLIENT FRAMING ERROR")]
    for _, msg in host.received:
        assert not isinstance(msg, Invalid), msg
        if isinstance(msg, Notification):
            spec = SERVER_NOTIFICATIONS.get(msg.method)
            assert spec is not None, f"undocumented notification {msg.method}"
            decode(spec.params, msg.params)


StartHost = Callable[..., HostClient]


@pytest.fixture
def start_host(home: Path) -> Iterator[StartHost]:
    hosts: list[HostClient] = []

    def start(*args: str, env: dict[str, str] | None = None) -> HostClient:
        host = HostClient(list(args), offline_env(home, env), command=[BINARY])
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.close()
        assert_wire_clean(host)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The session's workspace."""
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


@pytest.fixture
def host(start_host: StartHost) -> HostClient:
    h = start_host()
    h.initialize()
    return h


TEMPLATE_READY = "hermes-stdio: worker template ready"


def template_ready(host: HostClient) -> HostClient:
    """Wait until the host's supervisor logged that its worker template is ready."""
    host.wait_stderr(lambda line: line.startswith(TEMPLATE_READY), timeout=60)
    return host


@pytest.fixture(params=["spawned", "forked"])
def any_host(request: pytest.FixtureRequest, start_host: StartHost) -> HostClient:
    """An initialized host whose new workers are spawned cold, or forked from a ready
    template: the two ways a worker starts."""
    if request.param == "spawned":
        host = start_host("--no-worker-template")
        host.initialize()
        return host
    host = start_host()
    host.initialize()
    return template_ready(host)


def until_created(path: Path, then: str) -> str:
    """A shell command that waits for ``path`` to exist (bounded: 30 s), then runs
    ``then``: a background process that ends when the test chooses."""
    return f"for i in $(seq 600); do [ -e {path} ] && break; sleep 0.05; done; {then}"


def tool_result(host: HostClient, run_id: str) -> str:
    """The result of the run's first completed tool call."""
    for n in host.run_notifications(run_id):
        event: dict[str, Any] = n.params.get("event") or {}
        if event.get("type") == "tool.completed":
            return str(event.get("result"))
    raise AssertionError("no tool.completed event")


def wait_deleted(path: Path, timeout: float) -> bool:
    """True once ``path`` has been deleted (bounded; uses inotify, no polling)."""
    ino = inotify.Inotify()
    try:
        if ino.add_watch(str(path), inotify.DELETE_SELF) is None:
            return not path.exists()  # gone before the watch was set
        ready, _, _ = select.select([ino.fileno()], [], [], timeout)
        return bool(ready)
    finally:
        ino.close()


def overlaid(tmp_path: Path, module: ModuleType) -> Path:
    """A copy of a top-level module of hermes-agent's in a directory of its own: with that
    directory on PYTHONPATH the copy is loaded, and can change without touching the
    installed package."""
    overlay = tmp_path / "overlay"
    overlay.mkdir(exist_ok=True)
    copy = overlay / Path(str(module.__file__)).name
    shutil.copyfile(str(module.__file__), copy)
    return copy


def asked(host: HostClient, run_id: str, kind: str) -> Notification:
    """The run's first ``kind/requested`` (``sudo``, ``secret``, ...)."""
    return host.wait_for(
        lambda n: n.method == f"{kind}/requested" and n.params["runId"] == run_id, timeout=60
    )


def resolutions(host: HostClient, run_id: str, kind: str) -> list[dict[str, Any]]:
    """The run's ``kind/resolved`` notifications so far."""
    return [n.params for n in host.run_notifications(run_id) if n.method == f"{kind}/resolved"]


def managed_host(start_host: StartHost, where: Path, file: str, text: str) -> HostClient:
    """An initialized host whose administrator's managed scope (``where``, made
    here) holds ``file`` with ``text``."""
    where.mkdir()
    (where / file).write_text(text)
    host = start_host(env={"HERMES_MANAGED_DIR": str(where)})
    host.initialize()
    return host


def refused(host: HostClient, method: str, params: dict[str, Any]) -> RpcError:
    """The error ``method`` is answered with (the test fails if it succeeds)."""
    with pytest.raises(RpcError) as err:
        host.request(method, params)
    return err.value


def received(host: HostClient, method: str) -> list[Notification]:
    """Every ``method`` notification the host got so far, whatever its run."""
    return [n for _, n in host.received if getattr(n, "method", "") == method]


def subagent_ended(host: HostClient) -> Notification:
    """The first ``subagent/ended``, also when a wait for another notification (its
    parent's ``run/completed``, which may come after it) took it off the queue."""
    seen = received(host, "subagent/ended")
    return seen[0] if seen else host.wait_for(lambda n: n.method == "subagent/ended", 60)


def pushed_so_far(host: HostClient, method: str, expected: list[dict[str, Any]]) -> None:
    """Wait (bounded) until the host got as many ``method`` notifications as
    ``expected`` lists, then check their params are those, in order."""
    if len(received(host, method)) < len(expected):
        host.wait_for(lambda _n: len(received(host, method)) >= len(expected), timeout=20)
    assert [n.params for n in received(host, method)] == expected


def background_calls(host: HostClient) -> list[dict[str, Any]]:
    """The tool calls background subagents showed so far (``subagent.tool`` progress)."""
    progress = [n.params["progress"] for n in received(host, "subagent/progress")]
    return [p for p in progress if p["kind"] == "subagent.tool"]


def opened_by_reader(fifo: Path, timeout: float = 60) -> int:
    """The FIFO's write end, once something opened it to read (at most ``timeout``)."""
    opened: list[int] = []
    opener = threading.Thread(target=lambda: opened.append(os.open(fifo, os.O_WRONLY)))
    opener.start()
    opener.join(timeout)
    if opener.is_alive():
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the opener end
        opener.join(timeout)
        for fd in (reader, *opened):
            os.close(fd)
        raise AssertionError(f"nothing read {fifo} within {timeout} s")
    return opened[0]


def worker_pids(host: HostClient) -> dict[tuple[str, str | None], int]:
    status = host.request("supervisor/status")
    return {(w["profile"], w["workerKey"]): w["pid"] for w in status["workers"] if w["pid"]}


def started_worker(host: HostClient, llm: ScriptedLLM, profile: str = "default") -> int:
    """Run one short turn so the profile's worker exists; its pid."""
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "profile": profile})
    host.wait_run_completed(run["runId"])
    return worker_pids(host)[(profile, None)]


def run_to_end(host: HostClient, params: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    run = host.request("run/start", params)
    host.wait_run_completed(run["runId"])
    return run, host.run_notifications(run["runId"])


TOOL_COMMAND = "sleep 31.5"


def run_in_a_long_tool(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, *, background: bool = False
) -> tuple[dict[str, Any], list[int]]:
    """Start a run whose terminal tool is running ``TOOL_COMMAND``; the run and the
    tool's pid. The tool's shell announces its pid through a FIFO (nothing is polled),
    then execs the command in the same process."""
    fifo = tmp_path / "tool-started"
    os.mkfifo(fifo)
    command = f"echo $$ > {fifo}; exec {TOOL_COMMAND}"
    args: dict[str, Any] = {"command": command, **({"background": True} if background else {})}
    llm.enqueue(Reply.tool_call("terminal", args), Reply.text(["done"]))
    started: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: started.put(fifo.read_text()), daemon=True).start()
    run = host.request("run/start", {"message": "wait"})
    tool_pid = int(started.get(timeout=30).strip())
    return run, [tool_pid]


def assert_runs_ended_once_in_order(host: HostClient, run_ids: list[str]) -> None:
    """Waits (bounded) until every run in ``run_ids`` has ended; then each ended with
    exactly one ``run/completed``, no other run ended, and every run's notifications
    are numbered 1..n with none missing."""
    ended = {
        m.params["runId"]
        for _, m in list(host.received)
        if isinstance(m, Notification) and m.method == "run/completed"
    }
    waiting = set(run_ids) - ended  # one already consumed by a wait_for is not waited for

    def last_one(note: Notification) -> bool:
        if note.method == "run/completed":
            waiting.discard(note.params["runId"])
        return not waiting

    if waiting:
        host.wait_for(last_one, timeout=120)
    notes = [m for _, m in host.received if isinstance(m, Notification)]
    assert Counter(n.params["runId"] for n in notes if n.method == "run/completed") == Counter(
        run_ids
    )
    numbered: dict[str, list[int]] = {}
    for n in notes:
        if "seq" in n.params:
            numbered.setdefault(n.params["runId"], []).append(n.params["seq"])
    assert all(seqs == list(range(1, len(seqs) + 1)) for seqs in numbered.values())


def within_the_turn(
    start_host: StartHost,
    llm: ScriptedLLM,
    home: Path,
    worker: str = "spawned",
    env: dict[str, str] | None = None,
) -> tuple[HostClient, Gate]:
    """A host (whose workers are ``spawned`` or ``forked``) whose profile runs two
    background delegations at most, and a first run that fills that pool with two
    subagents held in their first model call (until the returned gate is let go), so
    its next delegation runs within the turn."""
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["delegation"] = {"max_concurrent_children": 2}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host(*(["--no-worker-template"] if worker == "spawned" else []), env=env)
    host.initialize()
    if worker == "forked":
        template_ready(host)
    held = Gate()
    for name in ("busy one", "busy two"):
        llm.enqueue_for(name, Reply.text(["idle"], gate=held))
    llm.enqueue(
        *(Reply.tool_call("delegate_task", {"goal": n}) for n in ("busy one", "busy two")),
        Reply.text(["both dispatched"]),
    )
    run = host.request("run/start", {"message": "fill the pool"})
    host.wait_run_completed(run["runId"])
    return host, held


def delegating(host: HostClient, llm: ScriptedLLM, goal: str, session_id: str) -> str:
    """Start a run of ``session_id`` whose agent delegates ``goal`` to one subagent, then
    says it is done; its ``runId``."""
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": goal}), Reply.text(["done"]))
    params = {"sessionId": session_id, "message": "delegate it"}
    return str(host.request("run/start", params)["runId"])


def subagent_runs(llm: ScriptedLLM, goal: str, command: str) -> None:
    """Script the subagent given ``goal``: one terminal ``command``, then its reply."""
    llm.enqueue_for(goal, Reply.tool_call("terminal", {"command": command}), Reply.text(["done"]))


def serving(script: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    """A server fixture (``python script args...``) that prints its port once it
    serves: its process and port."""
    proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert select.select([proc.stdout], [], [], 60)[0], f"{script.name} did not start"
    return proc, int(proc.stdout.readline())
