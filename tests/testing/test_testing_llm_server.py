"""ScriptedLLM: its model listing, counted and held while a gate is set; replies
scripted for one conversation among several."""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM

WAIT = 10.0


def _list(llm: ScriptedLLM, out: list[str]) -> None:
    with urllib.request.urlopen(f"{llm.base_url}/models", timeout=WAIT) as resp:
        out.append(json.load(resp)["data"][0]["id"])


def test_a_model_listing_waits_at_the_gate_until_released_and_is_counted() -> None:
    with ScriptedLLM() as llm:
        got: list[str] = []
        _list(llm, got)
        assert got == ["test-model"] and llm.models_listed == 1
        gate = llm.models_gate = Gate()
        held = threading.Thread(target=_list, args=(llm, got))
        held.start()
        assert gate.arrived.wait(WAIT)
        held.join(0.2)  # bounded: it must still be waiting
        assert held.is_alive() and got == ["test-model"]
        gate.release.set()
        held.join(WAIT)
        assert got == ["test-model"] * 2 and llm.models_listed == 2
        llm.clear()
        assert llm.models_gate is None and llm.models_listed == 0


def _say(llm: ScriptedLLM, *messages: dict[str, Any]) -> str:
    body = json.dumps({"model": "test-model", "messages": list(messages)}).encode()
    request = urllib.request.Request(
        f"{llm.base_url}/chat/completions", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=WAIT) as resp:
        return str(json.load(resp)["choices"][0]["message"]["content"])


def test_a_conversation_whose_first_user_message_has_a_marker_takes_its_own_replies() -> None:
    with ScriptedLLM() as llm:
        llm.enqueue(Reply.text("common 1"), Reply.text("common 2"))
        llm.enqueue_for("count the kiwis", Reply.text("child 1"), Reply.text("child 2"))
        system = {"role": "system", "content": "count the kiwis"}  # only user messages count
        child = {"role": "user", "content": [{"type": "text", "text": "Goal: count the kiwis"}]}
        later = {"role": "user", "content": "now count the kiwis"}  # not the first one
        assert _say(llm, system, {"role": "user", "content": "hi"}, later) == "common 1"
        assert _say(llm, child) == "child 1"
        assert _say(llm, child, later) == "child 2"
        assert _say(llm, child) == "common 2"  # its own ran out
        llm.clear()
        llm.enqueue_for("count the kiwis", Reply.text("gone"))
        llm.clear()
        assert _say(llm, child) == "ok"  # the default reply
