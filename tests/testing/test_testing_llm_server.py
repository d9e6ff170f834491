"""ScriptedLLM's model listing: counted, and held while a gate is set."""

from __future__ import annotations

import json
import threading
import urllib.request

from hermes_stdio.testing.llm_server import Gate, ScriptedLLM

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
