"""ApprovalBridge on hermes-agent's real ``tools.approval``, in a child process
(importing hermes changes process-wide state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hermes_probe
import yaml

from hermes_stdio.testing.home import make_home

# Two tool calls of one session wait at once; the host answers the second first.
_PROBE = r"""
import json, os, queue, sys, threading
os.environ["HERMES_EXEC_ASK"] = "1"
from tools import approval
from hermes_stdio.worker.approvals import ApprovalBridge
from hermes_stdio.worker.keys import hermes_session_key

bridge = ApprovalBridge(approval, lambda: "manual")
sent = queue.Queue()
out = {"supported": bridge.supported, "sent": [], "results": {}}

def emit(method, payload):
    sent.put((method, payload))

def guarded(name, session, command):
    approval.set_current_session_key(hermes_session_key(session))
    res = approval.check_all_command_guards(command, "local")
    out["results"][name] = {"approved": res.get("approved"), "message": res.get("message")}

def wait_sent():
    method, payload = sent.get(timeout=30)
    out["sent"].append([method, payload])
    return payload

bridge.open("s1", emit)
bridge.open("s2", emit)
a = threading.Thread(target=guarded, args=("first", "s1", "rm -rf /tmp/hs-probe/a"))
a.start()
first = wait_sent()
b = threading.Thread(target=guarded, args=("second", "s1", "chmod 777 /tmp/hs-probe/b"))
b.start()
second = wait_sent()
out["other_session"] = bridge.answer("s2", second["approvalId"], "once", None)
out["unknown"] = bridge.answer("s1", "appr_nope", "once", None)
out["answer_second"] = bridge.answer("s1", second["approvalId"], "once", None)
b.join(30)
wait_sent()  # resolved: second
out["answer_first"] = bridge.answer("s1", first["approvalId"], "deny", "not today")
a.join(30)
wait_sent()  # resolved: first
out["again"] = bridge.answer("s1", first["approvalId"], "once", None)

# Nobody answers: hermes' approvals.timeout (3 s here) runs out.
t = threading.Thread(target=guarded, args=("timeout", "s2", "rm -rf /tmp/hs-probe/c"))
t.start()
wait_sent()
t.join(30)
wait_sent()
# The turn ends while a request waits: close() releases it.
c = threading.Thread(target=guarded, args=("closed", "s2", "rm -rf /tmp/hs-probe/d"))
c.start()
wait_sent()
bridge.close("s2")
c.join(30)
wait_sent()
print(json.dumps(out))
"""


# The host's answer lands after hermes' last wait for it timed out, before
# hermes drops the request: the event's wait answers, then reports a timeout.
_LATE_PROBE = r"""
import json, os, threading, time
os.environ["HERMES_EXEC_ASK"] = "1"
from tools import approval
from hermes_stdio.worker.approvals import ApprovalBridge
from hermes_stdio.worker.keys import hermes_session_key

bridge = ApprovalBridge(approval, lambda: "manual")
sent = []
answers = []

class LateEvent(threading.Event):
    def wait(self, timeout=None):
        requested = [p for m, p in sent if m == "approval/requested"]
        answers.append(bridge.answer("s1", requested[-1]["approvalId"], "once", None))
        time.sleep(timeout or 0)
        return False

class LateEntry(approval._ApprovalEntry):
    __slots__ = ()
    def __init__(self, data):
        super().__init__(data)
        self.event = LateEvent()

approval._ApprovalEntry = LateEntry
bridge.open("s1", lambda method, payload: sent.append([method, payload]))
approval.set_current_session_key(hermes_session_key("s1"))
res = approval.check_all_command_guards("rm -rf /tmp/hs-probe/late", "local")
print(json.dumps({"answers": answers, "sent": sent, "approved": res.get("approved")}))
"""


# A host session named "default" is open; a thread that carries no session
# (hermes' key falls back to "default") runs a flagged command.
_DEFAULT_PROBE = r"""
import json, os, threading
os.environ["HERMES_EXEC_ASK"] = "1"
from tools import approval
from hermes_stdio.worker.approvals import ApprovalBridge

bridge = ApprovalBridge(approval, lambda: "manual")
sent = []
bridge.open("default", lambda method, payload: sent.append([method, payload]))
out = {}

def unscoped():
    res = approval.check_all_command_guards("rm -rf /tmp/hs-probe/unscoped", "local")
    out["approved"] = res.get("approved")

t = threading.Thread(target=unscoped)
t.start()
t.join(30)
out["sent"] = sent
print(json.dumps(out))
"""


def _probe(tmp_path: Path, probe: str = _PROBE, timeout_s: int = 3) -> dict[str, Any]:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["approvals"]["timeout"] = timeout_s
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    result: dict[str, Any] = hermes_probe.probe(home, probe)
    return result


def test_the_host_resolves_exactly_the_request_it_names_and_every_request_is_closed(
    tmp_path: Path,
) -> None:
    out = _probe(tmp_path)
    assert out["supported"] is True
    sent = out["sent"]
    methods = [m for m, _ in sent]
    assert (
        methods
        == ["approval/requested"] * 2
        + ["approval/resolved"] * 2
        + [
            "approval/requested",
            "approval/resolved",
        ]
        * 2
    )
    first, second = sent[0][1], sent[1][1]
    assert first["command"] == "rm -rf /tmp/hs-probe/a" and first["patternKeys"]
    assert second["command"] == "chmod 777 /tmp/hs-probe/b"
    assert first["approvalId"] != second["approvalId"]
    # Answering the newer request ran that one only (hermes' own resolver takes the oldest).
    assert out["other_session"] is None and out["unknown"] is None
    assert out["answer_second"] == "approved"
    assert sent[2][1] == {
        "approvalId": second["approvalId"],
        "outcome": "approved",
        "decision": "once",
    }
    assert out["results"]["second"]["approved"] is True
    assert out["answer_first"] == "denied"
    assert sent[3][1]["outcome"] == "denied"
    assert out["results"]["first"]["approved"] is False
    assert "not today" in out["results"]["first"]["message"]
    assert out["again"] is None  # no longer pending
    assert sent[5][1]["outcome"] == "timed_out" and sent[5][1]["decision"] is None
    assert out["results"]["timeout"]["approved"] is False
    assert sent[7][1]["outcome"] == "cancelled"
    assert out["results"]["closed"]["approved"] is False


def test_an_answer_that_lands_as_hermes_times_out_is_the_one_hermes_acts_on(
    tmp_path: Path,
) -> None:
    out = _probe(tmp_path, _LATE_PROBE, timeout_s=1)
    assert out["answers"] == ["approved"]
    resolved = [p for m, p in out["sent"] if m == "approval/resolved"]
    assert [(r["outcome"], r["decision"]) for r in resolved] == [("approved", "once")]
    # The host was told "approved"; hermes must not block the command.
    assert out["approved"] is True


def test_a_host_session_named_default_is_not_asked_for_a_thread_that_carries_no_session(
    tmp_path: Path,
) -> None:
    out = _probe(tmp_path, _DEFAULT_PROBE)
    assert out["sent"] == []
    assert out["approved"] is False  # hermes holds it pending: never run unasked
