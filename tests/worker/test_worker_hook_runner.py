"""worker/hook_runner.py: hermes' shell-hook runner, replaced by one that gives the same
result but runs the hook in its session's directory and stops a hook whose thread
hermes interrupts. Real processes, hermes' real
``_spawn`` to compare with and its real per-thread interrupt."""

from __future__ import annotations

import json
import os
import select
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agent import shell_hooks as hermes_hooks
from tools import interrupt as hermes_interrupt

from hermes_stdio.worker import hook_runner

WAIT_S = 30.0


def installed(where: Any = Path.cwd) -> tuple[Any, Any, Any]:
    """hermes' three modules, in short (the real functions, wrapped in the copies)."""
    hooks = SimpleNamespace(_spawn=hermes_hooks._spawn)
    interrupt = SimpleNamespace(
        set_interrupt=hermes_interrupt.set_interrupt,
        is_interrupted=hermes_interrupt.is_interrupted,
    )
    run_agent = SimpleNamespace(_set_interrupt=hermes_interrupt.set_interrupt)
    assert hook_runner.install(hooks, interrupt, run_agent, where)
    return hooks, interrupt, run_agent


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "hook.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def spec(command: str, event: str = "pre_tool_call", timeout: int = 60) -> Any:
    return SimpleNamespace(event=event, command=command, timeout=timeout)


class Running:
    """A hook run on a thread of its own, which tells (through a FIFO) the pids of
    its process and of a child it started, then sleeps far longer than tests wait."""

    def __init__(
        self,
        hooks: Any,
        tmp_path: Path,
        event: str = "pre_tool_call",
        child: str = "subprocess.Popen(['sleep', '300'])",
    ) -> None:
        # A child with a pipe of its own says on it when it is set up.
        fifo = tmp_path / "started"
        os.mkfifo(fifo)
        command = script(
            tmp_path,
            "import os, subprocess, sys, time\n"
            "sys.stdin.read()\n"
            f"child = {child}\n"
            "if child.stdout: child.stdout.readline()\n"
            "sys.stderr.write('working\\n'); sys.stderr.flush()\n"
            f"with open({str(fifo)!r}, 'w') as out:\n"
            "    out.write(f'{os.getpid()} {child.pid}')\n"
            "time.sleep(300)\n",
        )
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.result: dict[str, Any] = {}
        self.thread = threading.Thread(
            target=lambda: self.result.update(hooks._spawn(spec(command, event), "{}"))
        )
        self.thread.start()
        assert select.select([reader], [], [], WAIT_S)[0]
        self.pids = [int(p) for p in os.read(reader, 64).split()]
        os.close(reader)

    def ended(self) -> dict[str, Any]:
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive()
        return self.result


def exit_of(pid: int) -> int:
    """A pidfd, readable once the process has exited (whoever its parent is)."""
    return os.pidfd_open(pid)


def exited(pidfds: list[int]) -> bool:
    try:
        return all(select.select([fd], [], [], WAIT_S)[0] for fd in pidfds)
    finally:
        for fd in pidfds:
            os.close(fd)


def test_a_hook_that_finishes_gives_what_hermes_own_runner_gives(tmp_path: Path) -> None:
    hooks, _, _ = installed()
    command = script(
        tmp_path,
        "import sys\n"
        "payload = sys.stdin.read()\n"
        "sys.stderr.write('note')\n"
        "print(payload.upper())\n"
        "sys.exit(3)\n",
    )
    ours, theirs = (
        hooks._spawn(spec(command), '{"a": 1}'),
        hermes_hooks._spawn(spec(command), '{"a": 1}'),
    )
    assert ours.pop("elapsed_seconds") >= 0
    theirs.pop("elapsed_seconds")
    assert (
        ours
        == theirs
        == {
            "returncode": 3,
            "stdout": '{"A": 1}\n',
            "stderr": "note",
            "timed_out": False,
            "error": None,
        }
    )
    for command in ("", "'unclosed", "/no/such/hook"):
        assert (
            hooks._spawn(spec(command), "{}")["error"]
            == hermes_hooks._spawn(spec(command), "{}")["error"]
        )


def test_a_hook_runs_in_its_sessions_directory_when_there_is_one_here(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "hooks").mkdir(parents=True)
    (project / "hooks" / "check.py").write_text("import os\nprint(os.getcwd())\n")
    command = f"{sys.executable} hooks/check.py"  # relative: found in the project

    def failing() -> Path:
        raise RuntimeError("no session")

    for where, ran_in in (
        (lambda: project, project),
        (lambda: tmp_path / "not-here", None),
        (failing, None),
    ):
        hooks, _, _ = installed(where)
        result = hooks._spawn(spec(command), "{}")
        if ran_in is None:  # the process's directory: no hooks/check.py there
            assert result["returncode"] == 2 and "check.py" in result["stderr"]
        else:
            assert (result["returncode"], result["stdout"]) == (0, f"{ran_in}\n")


def test_interrupting_the_hooks_thread_stops_its_process_group_and_blocks_the_call(
    tmp_path: Path,
) -> None:
    hooks, interrupt, _ = installed()
    running = Running(hooks, tmp_path)
    processes = [exit_of(pid) for pid in running.pids]
    interrupt.set_interrupt(True, running.thread.ident)
    try:
        result = running.ended()
    finally:
        interrupt.set_interrupt(False, running.thread.ident)
    assert result["returncode"] == 130 and not result["timed_out"]
    assert json.loads(result["stdout"]) == {"action": "block", "message": hook_runner.INTERRUPTED}
    assert result["stderr"] == "working\n"
    assert hermes_hooks._parse_response("pre_tool_call", result["stdout"]) == {
        "action": "block",
        "message": hook_runner.INTERRUPTED,
    }
    assert exited(processes)  # the hook and the child it started


def deaf(tmp_path: Path) -> str:
    """A child that ignores SIGTERM and holds none of the hook's pipes, as it starts."""
    path = tmp_path / "deaf.py"
    path.write_text(
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('set', flush=True)\n"
        "time.sleep(300)\n"
    )
    return (
        f"subprocess.Popen([sys.executable, {str(path)!r}], stdin=subprocess.DEVNULL,"
        " stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)"
    )


def test_an_interrupted_hooks_child_that_ignores_sigterm_and_holds_none_of_its_pipes_is_killed(
    tmp_path: Path,
) -> None:
    hooks, interrupt, _ = installed()
    running = Running(hooks, tmp_path, child=deaf(tmp_path))
    processes = [exit_of(pid) for pid in running.pids]
    interrupt.set_interrupt(True, running.thread.ident)
    try:
        assert running.ended()["returncode"] == 130
    finally:
        interrupt.set_interrupt(False, running.thread.ident)
    assert exited(processes)  # the hook ends at SIGTERM; its child only at the group's SIGKILL


def test_an_interrupted_hook_of_another_event_says_nothing(tmp_path: Path) -> None:
    hooks, _, run_agent = installed()
    running = Running(hooks, tmp_path, event="post_tool_call")
    # hermes' agent interrupts a turn through run_agent's own import of set_interrupt
    run_agent._set_interrupt(True, running.thread.ident)
    try:
        result = running.ended()
    finally:
        run_agent._set_interrupt(False, running.thread.ident)
    assert (result["returncode"], result["stdout"]) == (130, "")
    assert hermes_hooks._parse_response("post_tool_call", result["stdout"]) is None


def test_a_hook_whose_thread_was_interrupted_already_never_starts(tmp_path: Path) -> None:
    hooks, interrupt, _ = installed()
    marker = tmp_path / "ran"
    command = script(tmp_path, f"open({str(marker)!r}, 'w').close()\n")
    interrupt.set_interrupt(True)
    try:
        result = hooks._spawn(spec(command), "{}")
    finally:
        interrupt.set_interrupt(False)
    assert result["returncode"] == 130 and "block" in result["stdout"]
    assert not marker.exists()


def test_an_interrupt_of_another_thread_leaves_the_hook_running(tmp_path: Path) -> None:
    hooks, interrupt, _ = installed()
    other = threading.Thread(target=lambda: None)
    other.start()
    other.join()
    command = script(tmp_path, "import sys\nprint(sys.stdin.read())\n")
    interrupt.set_interrupt(True, other.ident)
    try:
        result = hooks._spawn(spec(command), "{}")
    finally:
        interrupt.set_interrupt(False, other.ident)
    assert (result["returncode"], result["stdout"]) == (0, "{}\n")


def test_a_hook_past_its_timeout_is_killed_and_reads_timed_out(tmp_path: Path) -> None:
    hooks, _, _ = installed()
    command = script(tmp_path, "import time\ntime.sleep(300)\n")
    result = hooks._spawn(spec(command, timeout=1), "{}")
    assert result["timed_out"] and result["returncode"] is None and result["error"] is None


def test_nothing_is_replaced_when_hermes_lacks_a_function() -> None:
    hooks = SimpleNamespace(_spawn=hermes_hooks._spawn)
    interrupt = SimpleNamespace(set_interrupt=hermes_interrupt.set_interrupt)
    lacking = SimpleNamespace(_set_interrupt=print)
    assert not hook_runner.install(hooks, interrupt, lacking, Path.cwd)
    assert hooks._spawn is hermes_hooks._spawn
    assert interrupt.set_interrupt is hermes_interrupt.set_interrupt
