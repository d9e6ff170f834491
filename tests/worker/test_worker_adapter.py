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


_WRAPPING_TURNS = """
import json, os, sys
from pathlib import Path
from hermes_stdio.transport import take_over_stdio
_, wire = take_over_stdio()
from agent.process_bootstrap import _install_safe_stdio
from agent.thread_scoped_output import thread_scoped_silence
from hermes_stdio.worker.adapter import HermesAdapter
from hermes_stdio.worker.state import Session

class Agent:
    _session_messages = None

    def clear_interrupt(self):
        pass

    def run_conversation(self, message, conversation_history, task_id):
        _install_safe_stdio()  # what hermes does on each agent run
        with thread_scoped_silence():  # what each background review does
            pass
        return {"final_response": "ok", "messages": [], "api_calls": 1}

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

adapter, session, agent = HermesAdapter(Path(sys.argv[1])), Session("sess_1", "default"), Agent()
depths = []
for _ in range(30):
    adapter.run_turn(agent, session, "hi", lambda: False)
    depths.append(layers(sys.stdout))
os.write(wire, json.dumps(depths).encode() + b"\\n")
"""


def test_hermes_stdout_wrappers_do_not_pile_up_turn_after_turn(tmp_path: Path) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPING_TURNS, str(home)],
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    depths = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(depths) == 30
    assert max(depths) == depths[0] >= 1  # each turn wraps what the worker installed, once
