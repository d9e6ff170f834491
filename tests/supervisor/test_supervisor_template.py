"""WorkerTemplate and ForkedChild against a real template process."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermes_stdio.supervisor import server
from hermes_stdio.supervisor import template as template_mod
from hermes_stdio.supervisor.server import Supervisor
from hermes_stdio.supervisor.template import ForkedChild, TemplateUnavailable, WorkerTemplate
from hermes_stdio.transport import stop_child

WAIT = 30.0
SYNTHETIC = ["--profile", "default", "--synthetic-agent"]


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


def cold_argv() -> list[str]:
    return [sys.executable, "-P", "-m", "hermes_stdio.worker.main", *SYNTHETIC]


def ready(t: WorkerTemplate) -> WorkerTemplate:
    assert t.wait_ready(WAIT), "the template did not get ready"
    return t


@pytest.fixture
def template() -> Iterator[WorkerTemplate]:
    t = WorkerTemplate(sys.executable, env())
    t.start()
    yield ready(t)
    t.stop()


def fork(t: WorkerTemplate, extra_env: dict[str, str] | None = None) -> ForkedChild:
    return t.fork(SYNTHETIC, {**env(), **(extra_env or {})}, "/", cold_argv())


def test_a_forked_child_waits_like_popen_and_reports_a_signal_as_a_negative_code(
    template: WorkerTemplate,
) -> None:
    child = fork(template)
    assert child.stdout.read(1)  # its worker/ready frame begins
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.05)
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(WAIT) == -signal.SIGKILL
    assert template.info().forks == 1
    assert template.info().state == "ready"


def test_a_forked_child_waited_on_by_several_threads_at_once_is_reaped_once_for_all(
    template: WorkerTemplate,
) -> None:
    child = fork(template)
    assert child.stdout.read(1)
    codes: list[object] = []

    def waiter() -> None:
        try:
            codes.append(child.wait(WAIT))
        except BaseException as exc:  # what a stop or the exit watcher would get
            codes.append(exc)

    threads = [threading.Thread(target=waiter) for _ in range(4)]
    for thread in threads:
        thread.start()
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.2)  # ...while they are all blocked on it
    os.kill(child.pid, signal.SIGKILL)
    for thread in threads:
        thread.join(WAIT)
    assert codes == [-signal.SIGKILL] * 4
    assert child.wait(0) == -signal.SIGKILL


def test_stop_child_stops_a_forked_worker_by_closing_its_stdin(template: WorkerTemplate) -> None:
    child = fork(template)
    assert child.stdout.read(1)
    assert stop_child(child, grace_s=0.0, after_stdin_s=WAIT) == 0


def test_a_refused_fork_raises_with_the_templates_reason(template: WorkerTemplate) -> None:
    with pytest.raises(TemplateUnavailable, match="OPENAI_LOG"):
        fork(template, {"OPENAI_LOG": "debug"})
    assert template.info().forks == 0


def test_a_template_still_importing_is_not_waited_for() -> None:
    t = WorkerTemplate(sys.executable, env())
    with pytest.raises(TemplateUnavailable, match="not been started"):
        fork(t)
    t.start()
    t.start()  # idempotent
    try:
        with pytest.raises(TemplateUnavailable, match="still starting"):
            fork(t)  # it imports for about a second: answered at once
        assert fork(ready(t)).pid > 0
    finally:
        t.stop()


def test_a_killed_template_restarts_on_the_next_fork_and_its_orphans_exit_unknown(
    template: WorkerTemplate,
) -> None:
    child = fork(template)
    assert child.stdout.read(1)
    first = template.info().pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.2)  # the orphan lives on: its template's death is not its own
    # The next fork finds it gone: it starts a new one and the caller spawns cold.
    assert template.wait_exited(WAIT)
    with pytest.raises(TemplateUnavailable, match="restarting"):
        fork(template)
    assert template.info().restarts == 1
    assert ready(template).info().pid not in (None, first)
    assert fork(template).pid > 0
    child.stdin.close()  # the orphan still serves its pipes and exits on EOF
    assert child.wait(WAIT) is None


def test_a_template_that_does_not_answer_a_fork_in_time_is_stopped_and_replaced(
    template: WorkerTemplate, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its late answer could be taken for a later fork's, and its late fork would run
    # a worker nobody talks to: a wedged template is done.
    monkeypatch.setattr(template_mod, "FORK_ANSWER_S", 0.5)
    wedged = template.info().pid
    assert wedged is not None
    watch = os.pidfd_open(wedged)
    os.kill(wedged, signal.SIGSTOP)
    try:
        with pytest.raises(TemplateUnavailable, match="did not answer"):
            fork(template)
        assert template.wait_exited(WAIT)
        assert template.info().state == "exited"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(wedged, signal.SIGCONT)
    with pytest.raises(TemplateUnavailable, match="restarting"):
        fork(template)
    assert ready(template).info().pid not in (None, wedged)
    assert fork(template).pid > 0
    try:
        gone, _, _ = select.select([watch], [], [], WAIT)
        assert gone  # stopped, not left behind
    finally:
        os.close(watch)


def test_a_template_that_keeps_exiting_is_restarted_at_most_max_restarts_times(
    template: WorkerTemplate,
) -> None:
    for _ in range(WorkerTemplate.MAX_RESTARTS + 1):
        pid = ready(template).info().pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert template.wait_exited(WAIT)
        with pytest.raises(TemplateUnavailable):
            fork(template)
    assert template.info().restarts == WorkerTemplate.MAX_RESTARTS
    assert template.info().state == "exited"


def test_a_template_that_cannot_start_is_failed_and_unavailable() -> None:
    t = WorkerTemplate("/nonexistent/python", env())
    t.start()
    assert t.info().state == "failed"
    with pytest.raises(TemplateUnavailable, match="cannot start"):
        fork(t)


def test_a_template_that_exits_at_once_is_reported_exited_by_the_time_its_exit_is_logged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The reader runs inline, so the exit is logged before start() returns: the
    # state a host reads after the log line must already say so.
    class Inline:
        def __init__(self, target: Callable[[], None], **_: object) -> None:
            self.target = target

        def start(self) -> None:
            self.target()

    inline = SimpleNamespace(**{**vars(threading), "Thread": Inline})
    monkeypatch.setattr(template_mod, "threading", inline)
    t = WorkerTemplate("/bin/false", env())  # ignores its arguments and exits 1
    logged: list[str] = []

    def log(message: str) -> None:
        if message.startswith("hermes-stdio: worker template pid"):
            logged.append(t.info().state)

    monkeypatch.setattr(template_mod, "log", log)
    t.start()
    t.stop()
    assert logged == ["exited"]


def test_the_supervisor_has_a_template_only_where_it_is_supported_and_wanted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def template_of(wanted: bool) -> WorkerTemplate | None:
        sup = Supervisor(
            tmp_path, sys.executable, max_body_bytes=1 << 20, base_env={}, worker_template=wanted
        )
        return sup.pool.template

    assert isinstance(template_of(True), WorkerTemplate)  # not started until initialize
    assert template_of(False) is None
    monkeypatch.setattr(server, "TEMPLATE_SUPPORTED", False)
    assert template_of(True) is None


def test_a_template_reporting_problems_is_unsafe_and_never_forks(tmp_path: Path) -> None:
    # A stand-in template: says ready with a problem, then waits for EOF.
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import json, socket, sys\n"
        "sock = socket.socket(fileno=int(sys.argv[sys.argv.index('--fd') + 1]))\n"
        "sock.send(json.dumps({'type': 'ready', 'pid': 1, 'modules': 1, 'preloadMs': 1.0,"
        " 'problems': ['opened /home/me/.hermes/SOUL.md']}).encode())\n"
        "sock.recv(1)\n"
    )
    fake.chmod(0o755)
    t = WorkerTemplate(str(fake), env())
    t.start()
    try:
        assert not t.wait_ready(WAIT)  # it answered, but not as ready
        info = t.info()
        assert (info.state, info.problem) == ("unsafe", "opened /home/me/.hermes/SOUL.md")
        with pytest.raises(TemplateUnavailable, match="unsafe: opened"):
            fork(t)
    finally:
        t.stop()


def test_the_templates_environment_is_read_when_it_starts_not_when_the_supervisor_does(
    tmp_path: Path,
) -> None:
    # Reading every profile's .env (and importing python-dotenv) would delay initialize.
    script = (
        "import sys; from pathlib import Path\n"
        "from hermes_stdio.supervisor.server import Supervisor\n"
        f"s = Supervisor(Path({str(tmp_path)!r}), sys.executable, max_body_bytes=1024,"
        " worker_template=True)\n"
        "assert s.pool.template is not None\n"
        "print('dotenv' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == b"False"
    calls: list[int] = []

    def read() -> dict[str, str]:
        calls.append(1)
        return env()

    t = WorkerTemplate(sys.executable, read)
    assert calls == []
    t.start()
    try:
        assert calls == [1] and ready(t).info().state == "ready"
    finally:
        t.stop()
