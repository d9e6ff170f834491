"""Warm starts through the real binary: workers forked from the worker template."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import (
    DEFAULT_SECRET,
    TEMPLATE_READY,
    WORK_SECRET,
    StartHost,
    overlaid,
    template_ready,
    wait_gone,
)

WAIT = 60.0


def worker(host: HostClient, profile: str) -> dict[str, Any]:
    status = host.request("supervisor/status")
    (found,) = [w for w in status["workers"] if w["profile"] == profile]
    return dict(found)


def template(host: HostClient) -> dict[str, Any]:
    info = host.request("supervisor/status")["template"]
    assert isinstance(info, dict)
    return info


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def complete_run(host: HostClient, llm: ScriptedLLM, profile: str, text: str) -> str:
    llm.enqueue(Reply.text([text]))
    run = host.request("run/start", {"message": "hi", "profile": profile})
    done = host.wait_run_completed(run["runId"], timeout=WAIT)
    assert done.params["status"] == "complete", done.params
    return str(done.params["result"]["finalResponse"])


def test_a_worker_needed_before_the_template_is_ready_is_spawned_cold_at_once(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    host.initialize()
    llm.enqueue(Reply.text(["early"]))
    host.request("run/start", {"message": "hi"})  # right away: the template is importing
    w = worker(host, "default")
    assert w["startMode"] == "spawned"
    assert w["forkFallback"] == "the template is still starting"
    assert parent_of(w["pid"]) == host.proc.pid


def test_a_new_profiles_worker_is_forked_from_the_template_and_runs_the_real_agent(
    host: HostClient, llm: ScriptedLLM
) -> None:
    template_ready(host)
    assert complete_run(host, llm, "work", "forked hello") == "forked hello"
    w, t = worker(host, "work"), template(host)
    assert (w["startMode"], w["forkFallback"]) == ("forked", None)
    assert t["state"] == "ready" and t["forks"] == 1 and t["problem"] is None
    assert t["modules"] > 500 and t["preloadMs"] > 0
    assert parent_of(w["pid"]) == t["pid"]
    assert os.getpgid(w["pid"]) == w["pid"]


def test_the_template_holds_no_profiles_secrets(start_host: StartHost, llm: ScriptedLLM) -> None:
    host = start_host(env={"DEFAULT_SECRET": DEFAULT_SECRET})
    host.initialize()
    template_ready(host)
    with open(f"/proc/{template(host)['pid']}/environ", "rb") as f:
        environ = f.read()
    assert DEFAULT_SECRET.encode() not in environ and WORK_SECRET.encode() not in environ
    assert b"HERMES_HOME=" not in environ


def test_a_profile_env_that_changes_what_preloaded_modules_read_restarts_the_worker_cold(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    (home / "profiles" / "play" / ".env").write_text("OPENAI_API_VERSION=2099-01-01\n")
    template_ready(host)
    assert complete_run(host, llm, "play", "cold hello") == "cold hello"
    w = worker(host, "play")
    assert w["startMode"] == "spawned"
    assert "OPENAI_API_VERSION" in w["forkFallback"]
    # It replaced itself in place: same pid, still the template's child.
    assert parent_of(w["pid"]) == template(host)["pid"]


def test_without_the_template_workers_are_spawned_cold(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--no-worker-template")
    host.initialize()
    assert host.request("supervisor/status")["template"] is None
    complete_run(host, llm, "default", "ok")
    w = worker(host, "default")
    assert (w["startMode"], w["forkFallback"]) == ("spawned", None)
    assert parent_of(w["pid"]) == host.proc.pid


def test_a_killed_template_is_restarted_while_its_workers_serve_on(
    host: HostClient, llm: ScriptedLLM
) -> None:
    template_ready(host)
    complete_run(host, llm, "default", "first")
    forked = worker(host, "default")
    assert forked["startMode"] == "forked"
    first = template(host)["pid"]
    os.kill(first, signal.SIGKILL)
    host.wait_stderr(lambda line: line == f"hermes-stdio: worker template pid {first} exited")
    assert complete_run(host, llm, "default", "still here") == "still here"
    # The next new worker finds the template gone: spawned cold while it restarts.
    assert complete_run(host, llm, "work", "cold") == "cold"
    w = worker(host, "work")
    assert w["startMode"] == "spawned" and "restarting" in w["forkFallback"]
    assert template(host)["restarts"] == 1
    host.wait_stderr(lambda line: line.startswith(TEMPLATE_READY), timeout=WAIT, count=2)
    assert complete_run(host, llm, "play", "forked again") == "forked again"
    assert worker(host, "play")["startMode"] == "forked"
    assert template(host)["pid"] not in (None, first)
    # The orphaned worker's exit status died with the first template: unknown.
    os.kill(forked["pid"], signal.SIGKILL)
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=WAIT)
    assert exited.params["pid"] == forked["pid"]
    assert (exited.params["exitCode"], exited.params["signal"]) == (None, None)
    assert exited.params["expected"] is False and exited.params["reason"] == "crashed"


def test_a_killed_supervisor_takes_its_template_and_forked_workers_with_it(
    host: HostClient, llm: ScriptedLLM
) -> None:
    template_ready(host)
    complete_run(host, llm, "default", "ok")
    assert worker(host, "default")["startMode"] == "forked"
    worker_pid, template_pid = worker(host, "default")["pid"], template(host)["pid"]
    os.kill(host.proc.pid, signal.SIGKILL)
    assert wait_gone(template_pid, WAIT)
    assert wait_gone(worker_pid, WAIT)


def host_whose_template_runs(start_host: StartHost, tmp_path: Path, command: str) -> HostClient:
    """An initialized host whose agent Python runs workers for real but the shell
    ``command`` in place of the worker template (the template runs under that Python)."""
    wrapper = tmp_path / "agent-python"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *worker.template*) {command} ;; esac\n'
        f'exec {sys.executable} "$@"\n'
    )
    wrapper.chmod(0o755)
    host = start_host("--agent-python", str(wrapper))
    host.initialize()
    return host


def test_a_template_that_cannot_start_is_reported_failed_and_workers_spawn_cold(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # This agent Python spawns workers fine but cannot run the template at all.
    host = host_whose_template_runs(start_host, tmp_path, "exit 3")
    host.wait_stderr(lambda line: line.startswith("hermes-stdio: worker template pid"), WAIT)
    t = template(host)
    assert t["state"] == "exited" and t["pid"] is None
    assert complete_run(host, llm, "default", "cold") == "cold"
    w = worker(host, "default")
    assert w["startMode"] == "spawned" and "restarting" in w["forkFallback"]


def test_an_unsafe_template_is_reported_and_never_forks(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # A stand-in template that reports an unsafe preload; workers run for real.
    fake = tmp_path / "fake_template.py"
    fake.write_text(
        "import json, socket, sys\n"
        "sock = socket.socket(fileno=int(sys.argv[sys.argv.index('--fd') + 1]))\n"
        "sock.send(json.dumps({'type': 'ready', 'pid': 1, 'modules': 1, 'preloadMs': 1.0,"
        " 'problems': ['opened /home/me/.hermes/SOUL.md']}).encode())\n"
        "sock.recv(1)\n"
    )
    host = host_whose_template_runs(start_host, tmp_path, f'exec {sys.executable} {fake} "$@"')
    host.wait_stderr(lambda line: line.startswith("hermes-stdio: worker template unsafe"), WAIT)
    t = template(host)
    assert (t["state"], t["problem"]) == ("unsafe", "opened /home/me/.hermes/SOUL.md")
    assert complete_run(host, llm, "default", "cold") == "cold"
    w = worker(host, "default")
    assert w["startMode"] == "spawned" and "unsafe" in w["forkFallback"]
    assert template(host)["forks"] == 0


def test_after_hermes_changes_on_disk_the_template_forks_no_more_and_a_new_one_loads_it(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    import hermes_constants  # one the template preloads

    module = overlaid(tmp_path, hermes_constants)
    host = start_host(env={"PYTHONPATH": str(module.parent)})
    host.initialize()
    template_ready(host)
    complete_run(host, llm, "default", "first")
    assert worker(host, "default")["startMode"] == "forked"
    first = template(host)["pid"]

    module.write_text(module.read_text() + "\n# upgraded\n")
    # The forked worker watches what the template loaded for it.
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "again", "profile": "default"})
    assert err.value.kind is ErrorType.AGENT_RUNTIME_STALE
    # A new worker is not forked from the stale template, which exits.
    assert complete_run(host, llm, "work", "cold") == "cold"
    w = worker(host, "work")
    assert w["startMode"] == "spawned" and "changed on disk" in w["forkFallback"]
    host.wait_stderr(lambda line: line == f"hermes-stdio: worker template pid {first} exited")
    # The next start brings a new template up, and workers fork from it again.
    complete_run(host, llm, "play", "cold again")
    host.wait_stderr(lambda line: line.startswith(TEMPLATE_READY), timeout=WAIT, count=2)
    restarted = host.request("worker/restart", {"profile": "default"})["worker"]
    assert restarted["startMode"] == "forked"
    assert complete_run(host, llm, "default", "fresh") == "fresh"
    assert template(host)["pid"] not in (None, first)


def test_a_forked_worker_offers_the_model_exactly_the_tools_a_cold_one_does(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    offered = {}
    for mode, args in (("forked", ()), ("spawned", ("--no-worker-template",))):
        host = start_host(*args)
        host.initialize()
        if mode == "forked":
            template_ready(host)
        complete_run(host, llm, "work", mode)
        assert worker(host, "work")["startMode"] == mode
        offered[mode] = llm.requests[-1]["tools"]
        host.close()
    assert offered["forked"] == offered["spawned"]
    assert len(offered["forked"]) > 10
