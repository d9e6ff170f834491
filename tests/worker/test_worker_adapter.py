"""The real hermes-agent adapter, in a child process (importing hermes changes
process-wide state)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hermes_stdio.testing.home import make_home, offline_env

_PROBE = """
import json, sys
from pathlib import Path
from hermes_stdio.worker.adapter import HermesAdapter
HermesAdapter(Path(sys.argv[1])).preload()
mods = list(sys.modules)
import httpx, ssl
from agent import ssl_guard, ssl_verify
loads = []
real = ssl.create_default_context
ssl.create_default_context = lambda *a, **k: loads.append(k.get("cafile")) or real(*a, **k)
a, b = httpx.Client(), httpx.Client()
ssl_guard.verify_ca_bundle_with_fallback()  # what hermes runs at each agent build
ssl_verify.resolve_httpx_verify()  # at each client build
print(json.dumps({"run_agent": mods.index("run_agent") if "run_agent" in mods else None,
                  "openai": mods.index("openai") if "openai" in mods else None,
                  "shared": a._transport._pool._ssl_context is b._transport._pool._ssl_context,
                  "loads": loads}))
"""


def test_preload_imports_hermes_then_openai_and_loads_the_ca_bundles_its_agents_share(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(home)],
        env=offline_env(home, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    order = json.loads(out.stdout.strip().splitlines()[-1])
    # openai after run_agent: hermes has loaded the profile's .env by the time it imports.
    assert order["run_agent"] is not None and order["openai"] is not None
    assert order["openai"] > order["run_agent"]
    assert order["shared"] is True  # see sslshare: one CA-bundle load, not one per transport
    assert order["loads"] == []  # all loaded by the preload, off the first run's path


_RAISING_TURN = """
import json, sys
from pathlib import Path
from hermes_stdio.worker.adapter import HermesAdapter
from hermes_stdio.worker.state import Session

class Agent:
    _session_messages = None

    def __init__(self):
        self.flushed = []

    def clear_interrupt(self):
        pass

    def run_conversation(self, message, conversation_history, task_id):
        self._session_messages = [
            *conversation_history,
            {"role": "user", "content": message},
            {"role": "assistant", "content": "generated before the failure"},
        ]
        raise RuntimeError("late post-processing failure")

    def _flush_messages_to_session_db(self, messages):
        self.flushed.append([m["content"] for m in messages])

session = Session("sess_1", "default")
session.history = [{"role": "user", "content": "before"}]
agent = Agent()
try:
    HermesAdapter(Path(sys.argv[1])).run_turn(agent, session, "now", lambda: False)
    raised = None
except RuntimeError as exc:
    raised = str(exc)
print(json.dumps({"raised": raised, "flushed": agent.flushed, "restore": session.restore}))
"""


def test_a_turn_that_raises_has_what_it_generated_written_and_is_reloaded_next_run(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    out = subprocess.run(
        [sys.executable, "-c", _RAISING_TURN, str(home)],
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "raised": "late post-processing failure",
        "flushed": [["before", "now", "generated before the failure"]],
        "restore": True,
    }


_TURNS = """
import json, os, sys, threading
from pathlib import Path
from hermes_stdio.transport import take_over_stdio
_, wire = take_over_stdio()
from hermes_stdio.worker.adapter import HermesAdapter
from hermes_stdio.worker.state import Session

class Agent:
    _session_messages = None

    def clear_interrupt(self):
        pass

    def run_conversation(self, message, conversation_history, task_id):
        from agent import agent_init, conversation_loop
        from agent.thread_scoped_output import thread_scoped_silence
        agent_init._install_safe_stdio()  # what hermes does at each agent build...
        conversation_loop._install_safe_stdio()  # ...and run, by those modules' names
        with thread_scoped_silence():  # what each background review does
            pass
        return {"final_response": "ok", "messages": [], "api_calls": 1}

adapter, session, agent = HermesAdapter(Path(sys.argv[1])), Session("sess_1", "default"), Agent()
adapter.preload()
"""

_WRAPPING_TURNS = (
    _TURNS
    + """
def layers(stream):
    count = 0
    while True:
        for name in ("_inner", "_passthrough"):  # hermes' writer, hermes' router
            try:
                stream = object.__getattribute__(stream, name)
                break
            except AttributeError:
                pass
        else:
            return count
        count += 1

depths = []
for _ in range(30):
    adapter.run_turn(agent, session, "hi", lambda: False)
    depths.append(layers(sys.stdout))
os.write(wire, json.dumps(depths).encode() + b"\\n")
"""
)


def _run(script: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, str(home), *args],
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_hermes_stdout_wrappers_do_not_pile_up_turn_after_turn(tmp_path: Path) -> None:
    out = _run(_WRAPPING_TURNS, make_home(tmp_path, "http://127.0.0.1:9/v1"))
    assert out.returncode == 0, out.stderr[-2000:]
    depths = json.loads(out.stdout.strip().splitlines()[-1])
    assert depths == [1] * 30  # hermes' router, once, around the worker's own stream


_PRINTING_WHILE_TURNS_START = (
    _TURNS
    + """
sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
adapter.run_turn(agent, session, "hi", lambda: False)
done = threading.Event()

def warn():  # as hermes' compression thread does while another session's turn starts
    while not done.is_set():
        print("a warning from another thread", "x" * 50)

printer = threading.Thread(target=warn)
printer.start()
for _ in range(int(sys.argv[2])):
    adapter.run_turn(agent, session, "hi", lambda: False)
done.set()
printer.join()
os.write(wire, b"survived\\n")
"""
)


def test_a_thread_printing_while_turns_start_never_writes_to_a_freed_stream(
    tmp_path: Path,
) -> None:
    # print() borrows sys.stdout (cpython#130163): a turn that swapped the streams
    # freed the one another thread was writing to, and the worker died of SIGSEGV
    # (before the fix: on each of 3 tries, within the first few hundred turns).
    out = _run(_PRINTING_WHILE_TURNS_START, make_home(tmp_path, "http://127.0.0.1:9/v1"), "3000")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines()[-1] == "survived"


_SANDBOX_TOOL_CALL = (
    _TURNS
    + """
from tools import code_execution_tool
worker_streams = sys.stdout, sys.stderr
seen = []

def handle_function_call(name, args, task_id=None):  # what hermes dispatches it to
    seen.append((sys.stdout, sys.stderr) == worker_streams)
    return json.dumps({"output": "from the tool", "exit_code": 0})

import model_tools
model_tools.handle_function_call = handle_function_call  # the sandbox imports it per call
from tools.approval import enable_session_yolo, set_current_session_key
set_current_session_key("the-host-said-yes")  # the host's answer: not under test here
enable_session_yolo("the-host-said-yes")
result = json.loads(code_execution_tool.execute_code(
    "from hermes_tools import terminal\\nprint(terminal('true'))", task_id="t1"
))
os.write(wire, json.dumps({"seen": seen, **result}).encode() + b"\\n")
"""
)


def test_a_sandboxed_scripts_tool_call_leaves_the_workers_streams_in_place(
    tmp_path: Path,
) -> None:
    # hermes' execute_code set both streams to /dev/null, process-wide, around it.
    out = _run(_SANDBOX_TOOL_CALL, make_home(tmp_path, "http://127.0.0.1:9/v1"))
    assert out.returncode == 0, out.stderr[-2000:]
    ran = json.loads(out.stdout.strip().splitlines()[-1])
    assert ran["seen"] == [True], ran
    assert "from the tool" in ran["output"]
