"""The worker template process, driven over its socket like the supervisor does."""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.wire import FrameDecoder, parse_message
from hermes_stdio.wire.jsonrpc import Notification
from hermes_stdio.worker import preload

WAIT = 30.0


class Template:
    def __init__(self, env: dict[str, str]) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-P",
                "-m",
                "hermes_stdio.worker.template",
                "--fd",
                str(theirs.fileno()),
            ],
            pass_fds=(theirs.fileno(),),
            env=env,
            cwd="/",
            stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        theirs.close()
        self.sock.settimeout(WAIT)
        self.ready = self.recv()[0]

    def recv(self) -> tuple[dict[str, Any], list[int]]:
        data, fds, _flags, _addr = socket.recv_fds(self.sock, 1 << 20, 1)
        return (json.loads(data) if data else {}), fds

    def fork(self, options: list[str], env: dict[str, str]) -> tuple[dict[str, Any], Any]:
        """Ask for a worker; the reply and (stdin, stdout) of our ends, or None."""
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        request = {"type": "fork", "options": options, "env": env, "cwd": "/", "coldArgv": []}
        socket.send_fds(self.sock, [json.dumps(request).encode()], theirs)
        for fd in theirs:
            os.close(fd)
        os.close(pipes[2][0])
        reply, fds = self.recv()
        reply["fds"] = fds
        return reply, (pipes[0][1], pipes[1][0])

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(WAIT)


def base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


@pytest.fixture(scope="module")
def template() -> Iterator[Template]:
    t = Template(base_env())
    yield t
    t.close()


def first_message(read_fd: int) -> Notification:
    decoder = FrameDecoder()
    while True:
        ready, _, _ = select.select([read_fd], [], [], WAIT)
        assert ready, "no message from the forked worker"
        data = os.read(read_fd, 65536)
        assert data, "the forked worker closed its stdout"
        for frame in decoder.feed(data):
            msg = parse_message(frame.body)  # type: ignore[union-attr]
            assert isinstance(msg, Notification)
            return msg


def test_the_template_reports_ready_with_a_clean_audit(template: Template) -> None:
    assert template.ready["type"] == "ready"
    assert template.ready["pid"] == template.proc.pid
    assert template.ready["problems"] == []
    assert template.ready["modules"] > 500
    assert template.ready["preloadMs"] > 0
    assert template.ready["sslContexts"] >= 2  # httpx's default, certifi's for hermes' check
    assert template.ready["patterns"] == len(preload.patterns()) > 100  # all compiled here
    assert template.ready["codeFiles"] > 50  # those a worker imports itself, read ahead
    assert template.ready["bundleCheck"] is True  # hermes' CA-bundle check, passed here


def test_a_forked_worker_serves_its_pipes_and_its_exit_is_reported(template: Template) -> None:
    reply, (stdin_w, stdout_r) = template.fork(
        ["--profile", "work", "--synthetic-agent"], base_env()
    )
    assert reply["type"] == "forked"
    pid, [pidfd] = reply["pid"], reply["fds"]
    ready = first_message(stdout_r)
    assert ready.method == "worker/ready"
    assert ready.params["pid"] == pid
    assert ready.params["profile"] == "work"
    assert ready.params["startMode"] == "forked"
    assert os.getpgid(pid) == pid  # a session and process group of its own
    os.kill(pid, signal.SIGKILL)
    assert select.select([pidfd], [], [], WAIT)[0], "the pidfd never became readable"
    exited, _ = template.recv()
    assert exited == {"type": "exited", "pid": pid, "status": signal.SIGKILL}
    for fd in (pidfd, stdin_w, stdout_r):
        os.close(fd)


def test_a_fork_whose_environment_differs_from_what_preloading_read_is_refused(
    template: Template,
) -> None:
    reply, (stdin_w, stdout_r) = template.fork(
        ["--profile", "work", "--synthetic-agent"], {**base_env(), "OPENAI_LOG": "debug"}
    )
    assert reply["type"] == "refused"
    assert "OPENAI_LOG" in reply["reason"]
    assert reply["fds"] == []
    # The template closed its copies of the child's fds: nothing holds our pipes open.
    os.close(stdin_w)
    assert os.read(stdout_r, 1) == b""
    os.close(stdout_r)


def test_a_fork_request_without_fds_is_refused_and_the_template_carries_on(
    template: Template,
) -> None:
    template.sock.send(json.dumps({"type": "fork", "options": [], "env": {}, "cwd": "/"}).encode())
    reply, _ = template.recv()
    assert reply["type"] == "refused"
    assert "0 fds" in reply["reason"]
    assert template.proc.poll() is None


def test_closing_the_socket_ends_the_template_but_not_its_workers(tmp_path: Path) -> None:
    t = Template(base_env())
    reply, (stdin_w, stdout_r) = t.fork(["--profile", "default", "--synthetic-agent"], base_env())
    [pidfd] = reply["fds"]
    assert first_message(stdout_r).method == "worker/ready"
    t.close()
    assert t.proc.returncode == 0
    assert not select.select([pidfd], [], [], 0)[0], "the worker died with its template"
    os.close(stdin_w)  # EOF on its stdin: the worker exits by itself
    assert select.select([pidfd], [], [], WAIT)[0]
    os.close(pidfd)
    os.close(stdout_r)


def test_a_supervisor_gone_before_the_template_is_ready_ends_it_quietly() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "hermes_stdio.worker.template", "--fd", str(theirs.fileno())],
        pass_fds=(theirs.fileno(),),
        env=base_env(),
        cwd="/",
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    theirs.close()
    ours.close()  # before its preload is done: its ready message has no reader
    _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0
    assert "worker template: the supervisor is gone; exiting" in err
    assert "Traceback" not in err


def test_a_preload_that_writes_the_environment_makes_the_template_refuse_every_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_stdio.worker import template as template_module

    (tmp_path / "writes_env_at_import.py").write_text(
        "import os\nos.environ['HERMES_STDIO_TEST_WRITTEN'] = '1'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(template_module, "modules", lambda: ["writes_env_at_import"])
    # Not under test, and it would wrap hermes' real check for the rest of this process.
    monkeypatch.setattr(template_module, "check_ahead", lambda guard: False)
    monkeypatch.delenv("HERMES_STDIO_TEST_WRITTEN", raising=False)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        t = template_module.Template(theirs)
        try:
            t.preload()
        finally:
            gc.unfreeze()  # preload froze this test process's objects
        ready = json.loads(ours.recv(1 << 16))
        assert ready["problems"] == [
            "set or deleted environment variable HERMES_STDIO_TEST_WRITTEN"
        ]
        assert t._refusal(dict(os.environ)) == (
            "preloading was unsafe: set or deleted environment variable HERMES_STDIO_TEST_WRITTEN"
        )


def test_a_template_whose_preloaded_hermes_files_changed_refuses_to_fork_and_exits(
    tmp_path: Path,
) -> None:
    import hermes_constants  # a module of hermes-agent's that the template preloads

    overlay = tmp_path / "overlay"
    overlay.mkdir()
    module = overlay / "hermes_constants.py"
    module.write_text(Path(hermes_constants.__file__).read_text())
    t = Template({**base_env(), "PYTHONPATH": str(overlay)})
    try:
        assert t.ready["problems"] == []
        assert t.ready["hermesModules"] > 50
        module.write_text(module.read_text() + "\n# upgraded\n")
        reply, (stdin_w, stdout_r) = t.fork(["--profile", "work", "--synthetic-agent"], base_env())
        assert reply["type"] == "refused"
        assert reply["reason"] == (
            f"hermes-agent changed on disk since the template loaded it ({module})"
        )
        assert t.proc.wait(WAIT) == 0  # a new template loads the new code
        os.close(stdin_w)
        os.close(stdout_r)
    finally:
        t.close()
