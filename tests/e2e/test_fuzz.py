"""Random params for every host method, through the real binary, workers and hermes-agent.

Params are generated from the exported JSON Schema, then often broken: a field of the
wrong type, a missing one, an odd string (empty, a NUL, "-rf", "../..", 5,000
characters). Ids are drawn from those the server handed out (runs, sessions, cron jobs,
the ids of approval and clarify requests), so live runs get interrupted, steered and
answered, and workers restarted under them; some requests are cancelled as soon as
they are sent. Whatever comes in,
the server must answer every request with a result or a documented error that is not
``internal_error``, end every run it started with exactly one ``run/completed``, keep
its stream well-formed (checked at teardown), keep every worker up unless asked to stop
one, and go on serving.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, Response, RpcError

from .conftest import StartHost, assert_runs_ended_once_in_order, template_ready

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "hermes_stdio" / "protocol" / "schema.json").read_text()
)
METHODS: dict[str, Any] = SCHEMA["x-methods"]
ENDS_THE_SESSION = {"shutdown", "exit"}
STARTS_A_RUN = {"run/start", "session/compress", "cron/run"}  # answered {runId, sessionId}
ODD_STRINGS = [
    "", " ", "..", "../..", "../../etc/passwd", "/", "default", "work", "nope", "a" * 5000,
    "\u0000", "a\nb", "é", "😀", "%s%n", "${HOME}", "-rf", "--profile=work", ".env", "CON",
    "every 1h",  # a schedule hermes takes: cron jobs get made, run now and fired
]  # fmt: skip


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def junk(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(8 if depth < 3 else 5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 2**31, 2**53 + 1, -(2**63), 1.5, -0.0, 1e308])
    if pick in (3, 4):
        return rng.choice(ODD_STRINGS)
    if pick == 5:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(3))]
    if pick == 6:
        return {rng.choice(["type", "role", "content", "a"]): junk(rng, depth + 1)}
    return [[[[[]]]]]


Ids = dict[str, list[str]]  # live ids by the field name that takes them


def generated(schema: dict[str, Any], rng: random.Random, ids: Ids, name: str) -> Any:
    """A value of ``schema``'s shape; a string field named like an id often takes a live one."""
    schema = resolved(schema)
    if "anyOf" in schema:
        return generated(rng.choice(schema["anyOf"]), rng, ids, name)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        required = set(schema.get("required", []))
        return {
            key: generated(sub, rng, ids, key)
            for key, sub in schema.get("properties", {}).items()
            if key in required or rng.random() < 0.3
        }
    if kind == "array":
        return [generated(schema.get("items", {}), rng, ids, name) for _ in range(rng.randrange(3))]
    if kind == "string":
        live = ids.get(name)
        return rng.choice(live) if live and rng.random() < 0.7 else rng.choice(ODD_STRINGS)
    if kind == "integer":
        return rng.choice([0, 1, -1, 3, 100, 2**31])
    if kind == "number":
        return rng.choice([0, 0.5, -1.0, 1e9])
    if kind == "boolean":
        return rng.random() < 0.5
    return junk(rng) if kind != "null" else None


def broken(params: Any, rng: random.Random) -> Any:
    """``params`` with one field changed, removed or replaced, or no longer an object."""
    if rng.random() < 0.05:
        return junk(rng)
    if not isinstance(params, dict) or not params:
        return params
    key = rng.choice(list(params))
    roll = rng.random()
    if roll < 0.4:
        params[key] = junk(rng)
    elif roll < 0.6:
        del params[key]
    else:
        params[key] = rng.choice(ODD_STRINGS)
    return params


DANGER = "hermes-stdio-fuzz-nothing-here"  # in a command hermes asks approval for
DANGEROUS = f"rm -rf /tmp/{DANGER} && echo ran-dangerous-$((1+1))"
RAN = "ran-dangerous-2"  # what it prints: the command's text is not that until a shell runs it
REPLIES = [
    lambda: Reply.text(["fuzzed ", "reply"]),
    lambda: Reply.text([f"t{i} " for i in range(20)], delay=0.02),
    lambda: Reply.tool_call("terminal", {"command": "echo fuzz"}),
    lambda: Reply.tool_call("clarify", {"question": "which?", "choices": ["a", "b"]}),
    # Needs the host's approval; harmless if approved.
    lambda: Reply.tool_call("terminal", {"command": DANGEROUS}),
]
# The ids a run's asks carry, kept for the respond methods' params of the same name.
ASKS = {
    "approval/requested": "approvalId",
    "clarify/requested": "clarifyId",
    "sudo/requested": "sudoId",
    "secret/requested": "secretId",
    "compression/requested": "compressionId",
}


ANSWERS: dict[str, tuple[str, str, list[Any]]] = {  # well-formed: method, field, values
    "approval/requested": ("approval/respond", "decision", ["once", "session", "always", "deny"]),
    "clarify/requested": ("clarify/respond", "answer", ["a", "b", ""]),
}


def harvest(host: HostClient, ids: Ids, asked: list[Notification], seen: int) -> int:
    """Add the asks (and their ids) received since message ``seen``; the new count."""
    received = list(host.received)
    for _, msg in received[seen:]:
        if isinstance(msg, Notification) and msg.method in ASKS:
            ids.setdefault(ASKS[msg.method], []).append(msg.params[ASKS[msg.method]])
            asked.append(msg)
    return len(received)


def answer(ask: Notification, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A well-formed answer to ``ask``, any of the answers a host may give."""
    method, field, values = ANSWERS.get(ask.method, ("run/interrupt", "", []))
    params = {"runId": ask.params["runId"]}
    if field:
        key = ASKS[ask.method]
        params |= {key: ask.params[key], field: rng.choice(values)}
    return method, params


def fuzz(
    host: HostClient, llm: ScriptedLLM, seed: int, calls: int, auto_approved: set[str]
) -> list[str]:
    """Send ``calls`` random messages; the run ids the server started. The sessions
    the host told to run unasked (``autoApprove``) are added to ``auto_approved``."""
    rng = random.Random(seed)
    ids: Ids = {
        "profile": ["default", "work", "play"],
        "workerKey": ["fuzz"],
        "sessionId": ["fuzz-session"],
        "runId": [],
    }
    started: list[str] = []
    asked: list[Notification] = []
    seen = 0
    for i in range(calls):
        seen = harvest(host, ids, asked, seen)
        method = rng.choice(sorted(set(METHODS) - ENDS_THE_SESSION))
        spec = METHODS[method]
        params = generated(spec["params"], rng, ids, "")
        if rng.random() < 0.5:
            params = broken(params, rng)
        if asked and rng.random() < 0.1:  # now and then, answer an ask as a host would
            method, params = answer(asked.pop(rng.randrange(len(asked))), rng)
            spec = METHODS[method]
        elif rng.random() < 0.03:  # now and then, a turn as a host starts one: runs to lose
            method, params = (
                "run/start",
                {"message": "fuzz", "sessionId": rng.choice(ids["sessionId"])},
            )
            spec = METHODS[method]
        if method in STARTS_A_RUN:  # a turn's reply, or a compression's summary
            llm.enqueue(rng.choice(REPLIES)())
        if spec["kind"] == "notification":
            host.notify(method, params)
            continue
        # Now and then cancelled at once: answered either way, once. (A run the worker
        # accepted would start a run this fuzz does not know of: tested apart.)
        cancel = method not in STARTS_A_RUN and rng.random() < 0.1
        where = f"seed {seed}, call {i}: {method} {json.dumps(params)[:300]}, cancel {cancel}"
        try:
            result = call(host, method, params, cancel)
        except RpcError as err:
            assert err.kind is not ErrorType.INTERNAL_ERROR, f"{where} -> {err}"
            if err.kind is ErrorType.REQUEST_CANCELLED and turns_on_auto_approve(method, params):
                # A request the worker had begun runs to its end (§3): it may be on.
                auto_approved.add(params["sessionId"])
            continue
        except TimeoutError:
            pytest.fail(f"{where}: no answer in 60 s")
        if method in STARTS_A_RUN:
            started.append(result["runId"])
            ids["runId"].append(result["runId"])
            ids["sessionId"].append(result["sessionId"])
        if method == "cron/create":  # a job cron/run, cron/update ... may name
            ids.setdefault("jobId", []).append(result["job"]["jobId"])
        if isinstance(params, dict) and (
            (method == "run/start" and params.get("autoApprove") is True)
            or turns_on_auto_approve(method, params)
        ):
            auto_approved.add(result["sessionId"] if method == "run/start" else params["sessionId"])
    return started


def turns_on_auto_approve(method: str, params: Any) -> bool:
    return (
        method == "session/autoApprove"
        and isinstance(params, dict)
        and params.get("enabled") is True
        and isinstance(params.get("sessionId"), str)
    )


def call(host: HostClient, method: str, params: Any, cancel: bool) -> Any:
    """The request's result, or its error raised; ``cancel`` cancels it as soon as sent."""
    msg_id = host.send_request(method, params)
    if cancel:
        host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id, timeout=60)
    if resp.error is not None:
        raise RpcError.from_wire(resp.error)
    return resp.result


def assert_each_completed_once(host: HostClient, started: list[str]) -> None:
    for run_id in started:  # an unanswered ask (clarify) keeps a run open until then
        host.request("run/interrupt", {"runId": run_id})
    assert_runs_ended_once_in_order(host, started)


def assert_no_dangerous_command_ran_unapproved(host: HostClient, auto_approved: set[str]) -> None:
    """The fuzz's dangerous command ran only after the host approved it: in its run, or
    earlier for the session ("session", or autoApprove) or the profile ("always")."""
    profile_of: dict[str, str] = {}
    for_session: set[str] = set()
    for_profile: set[str] = set()
    approved_runs: set[str] = set()
    for _, m in list(host.received):
        if not isinstance(m, Notification) or "runId" not in m.params:
            continue
        run, p = m.params["runId"], m.params
        if m.method == "run/started":
            profile_of[run] = p["profile"]
        elif m.method == "approval/resolved" and p["outcome"] == "approved":
            approved_runs.add(run)
            if p["decision"] == "session":
                for_session.add(p["sessionId"])
            elif p["decision"] == "always":
                for_profile.add(profile_of[run])
        elif m.method == "run/event" and RAN in str(p["event"].get("result")):
            # Its output, not just a completed call: a blocked one completes too.
            allowed = (
                run in approved_runs
                or p["sessionId"] in for_session | auto_approved
                or profile_of[run] in for_profile
            )
            assert allowed, f"run {run} ran the dangerous command unapproved: " + "; ".join(
                f"{n.method} {json.dumps(n.params)[:300]}"
                for _, n in list(host.received)
                if isinstance(n, Notification) and n.params.get("sessionId") == p["sessionId"]
            )


def fuzzed_host(start_host: StartHost, llm: ScriptedLLM, mode: str, seed: int, calls: int) -> None:
    host = start_host(*(["--no-worker-template"] if mode == "spawned" else []))
    host.initialize()
    if mode == "forked":
        template_ready(host)
    auto_approved: set[str] = set()
    started = fuzz(host, llm, seed, calls, auto_approved)
    assert started, "the fuzz should start some runs"
    assert_each_completed_once(host, started)
    assert_no_dangerous_command_ran_unapproved(host, auto_approved)
    assert host.request("supervisor/status")["pid"] == host.proc.pid
    answered = Counter(
        m.id for _, m in host.received if isinstance(m, Response) and m.id is not None
    )
    assert set(answered.values()) == {1}, "a request was answered twice"
    # Workers stop when asked (worker/restart), never because of what a request held.
    exits = [m.params for _, m in host.received if getattr(m, "method", "") == "worker/exited"]
    unexpected = [e for e in exits if not e["expected"]]
    if unexpected:  # printed whole: captured output is shown in full on a failure
        print("unexpected worker exits:", json.dumps(unexpected))
        lines = host.stderr_lines
        fatal = [i for i, line in enumerate(lines) if "Fatal Python error" in line]
        for i in fatal:  # a crash's stacks (faulthandler), wherever they are
            print("\n".join(lines[i : i + 300]))
        print("\n".join(lines[-200:]))
    assert not unexpected, json.dumps(unexpected)
    own_lines = [line for line in host.stderr_lines if not line.startswith("[worker:")]
    assert not [line for line in own_lines if "Traceback" in line], own_lines


@pytest.mark.parametrize(("mode", "seed"), [("spawned", 1), ("forked", 2)])
def test_random_and_broken_params_to_every_method_never_break_the_server_or_lose_a_run(
    start_host: StartHost, llm: ScriptedLLM, mode: str, seed: int
) -> None:
    fuzzed_host(start_host, llm, mode, seed, calls=500)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(3, 13))
def test_a_long_fuzz_never_breaks_the_server_or_loses_a_run(
    start_host: StartHost, llm: ScriptedLLM, seed: int
) -> None:
    fuzzed_host(start_host, llm, "forked" if seed % 2 else "spawned", seed, calls=3000)
