"""The supervisor's own methods, driven in-process with a stand-in host."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol import HOST_METHODS, WORKER_METHODS
from hermes_stdio.supervisor import profile_methods, routing, server, shell_routing
from hermes_stdio.supervisor.server import Supervisor
from hermes_stdio.wire import ErrorType, Notification, Request
from hermes_stdio.worker.service import WorkerService


class Host:
    def __init__(self) -> None:
        self.answers: list[tuple[Any, Any, Any]] = []

    def respond(self, msg_id: Any, result: Any) -> bool:
        self.answers.append((msg_id, result, None))
        return True

    def respond_error(self, msg_id: Any, error: Any) -> bool:
        self.answers.append((msg_id, None, error))
        return True


def supervisor(home: Path) -> tuple[Supervisor, Host]:
    (home / "profiles" / "play").mkdir(parents=True)
    sup = Supervisor(
        home, sys.executable, max_body_bytes=1 << 20, base_env={}, worker_template=False
    )
    host = Host()
    sup.host = host  # type: ignore[assignment]
    sup.state = "initialized"
    sup._watch_settled.set()  # as initialize's watch would (it watches nothing here)
    return sup, host


def no_thread(fn: Callable[[], None]) -> None:
    raise RuntimeError("can't start new thread")


def test_a_restart_whose_thread_cannot_start_fails_alone_and_the_next_restart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)

    monkeypatch.setattr(server, "spawn_thread", no_thread)
    sup.on_request(host, Request(1, "worker/restart", {"profile": "play"}))  # type: ignore[arg-type]
    ((msg_id, result, error),) = host.answers
    assert msg_id == 1 and result is None
    assert error["code"] == ErrorType.INTERNAL_ERROR.code
    started: list[Callable[[], None]] = []
    monkeypatch.setattr(server, "spawn_thread", started.append)
    sup.on_request(host, Request(2, "worker/restart", {"profile": "play"}))  # type: ignore[arg-type]
    assert len(started) == 1  # its own restart, not a place in the failed one's group


def test_a_worker_start_whose_thread_cannot_start_answers_its_request_and_the_next_start_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(routing, "spawn_thread", no_thread)
    params = {"sessionId": "s1", "profile": "play"}
    sup.on_request(host, Request(1, "session/status", params))  # type: ignore[arg-type]
    ((msg_id, result, error),) = host.answers
    assert msg_id == 1 and result is None
    assert error["code"] == ErrorType.INTERNAL_ERROR.code
    assert sup.pool.slot("play", None).state == "exited"  # not left "starting"
    started: list[Callable[[], None]] = []
    monkeypatch.setattr(routing, "spawn_thread", started.append)
    sup.on_request(host, Request(2, "session/status", params))  # type: ignore[arg-type]
    assert len(started) == 1  # a thread of its own, not a wait for the failed start


def test_every_request_a_host_may_send_has_a_handler_here_and_in_the_worker_it_goes_to() -> None:
    def handler(name: str) -> str:
        return "_h_" + name.replace("/", "_")

    requests = [m for m in HOST_METHODS.values() if not m.notification]
    assert [m.name for m in requests if not hasattr(Supervisor, handler(m.name))] == []
    forwarded = [m.name for m in requests if m.route != "supervisor"]
    forwarded += [m.name for m in WORKER_METHODS.values() if not m.notification]
    assert [name for name in forwarded if not hasattr(WorkerService, handler(name))] == []


class NotifiedHost(Host):
    def __init__(self) -> None:
        super().__init__()
        self.notes: list[tuple[str, Any]] = []

    def notify(self, method: str, params: Any) -> bool:
        self.notes.append((method, params))
        return True


def test_a_profiles_command_files_changing_is_pushed_once_whichever_of_its_workers_saw_it(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "profiles" / "work").mkdir(parents=True)
    sup, _ = supervisor(tmp_path)
    host = NotifiedHost()
    sup.host = host  # type: ignore[assignment]
    play, keyed = sup.pool.slot("play", None), sup.pool.slot("play", "repo")
    work = sup.pool.slot("work", None)

    def report(slot: Any, params: Any) -> None:
        sup._relay(slot, Notification("worker/commandsChanged", params), b"")

    report(play, {"fingerprint": "a"})  # a profile's first report: its starting state
    report(work, {"fingerprint": "z"})
    report(keyed, {"fingerprint": "a"})  # another worker of it, the same files
    assert host.notes == []
    report(play, {"fingerprint": "b"})
    report(keyed, {"fingerprint": "b"})  # the same change, seen again
    assert host.notes == [("command/listChanged", {"profile": "play"})]
    report(keyed, {"fingerprint": "a"})  # changed back
    report(work, {"fingerprint": "z"})
    assert host.notes[1:] == [("command/listChanged", {"profile": "play"})]
    report(play, {"fingerprint": 7})
    assert len(host.notes) == 2 and "bad worker/commandsChanged" in capfd.readouterr().err


def test_a_workers_mcp_servers_are_pushed_naming_its_profile_and_worker_key(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    sup, _ = supervisor(tmp_path)
    host = NotifiedHost()
    sup.host = host  # type: ignore[assignment]
    server = {"name": "docs", "transport": "stdio", "status": "connected", "tools": 4}
    server.update(error=None, auth=None, signedIn=None)
    sent = Notification("worker/mcpChanged", {"servers": [server]})
    sup._relay(sup.pool.slot("play", "repo"), sent, b"")
    assert host.notes == [
        ("mcp/statusChanged", {"profile": "play", "workerKey": "repo", "servers": [server]})
    ]
    bad = Notification("worker/mcpChanged", {"servers": [{**server, "status": "exploded"}]})
    sup._relay(sup.pool.slot("play", None), bad, b"")
    assert len(host.notes) == 1 and "bad worker/mcpChanged" in capfd.readouterr().err


class RecordingPeer:
    """A ready worker's peer that records what it is asked, and how long it waits."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float | None]] = []

    def request(self, method: str, params: Any, handle: Any, timeout: float | None) -> int:
        self.asked.append((method, timeout))
        return len(self.asked)


@pytest.mark.parametrize(
    ("timeout_ms", "waits", "unlimited"),
    [
        (None, 60 + shell_routing.SHELL_SLACK_S, False),  # the default timeoutMs: 60 s
        (1_000, routing.REQUEST_TIMEOUT_S, False),
        (300_000, 300 + shell_routing.SHELL_SLACK_S, False),
        (1_000, None, True),  # disableTimeout: until it answers or dies
    ],
)
def test_a_shell_command_is_waited_for_its_timeout_plus_the_slack_and_never_less_than_any(
    tmp_path: Path, timeout_ms: int | None, waits: float | None, unlimited: bool
) -> None:
    sup, host = supervisor(tmp_path)
    slot = sup.pool.slot("play", None)
    peer = RecordingPeer()
    slot.peer, slot.state = peer, "ready"  # type: ignore[assignment]
    params: dict[str, Any] = {"command": ["true"], "profile": "play"}
    if timeout_ms is not None:
        params["timeoutMs"] = timeout_ms
    if unlimited:
        params["disableTimeout"] = True
    req = Request(5, "shell/exec", params)
    sup.on_request(host, req)  # type: ignore[arg-type]
    assert peer.asked == [("shell/exec", waits)] and host.answers == []


def test_while_a_profile_is_deleted_no_request_may_start_one_of_its_workers(
    tmp_path: Path,
) -> None:
    sup, host = supervisor(tmp_path)
    sup.routes.add_session("sess_1", ("play", None))
    sup.closing["play"] = "is being deleted"
    asks: list[tuple[str, dict[str, Any]]] = [
        ("run/start", {"message": "hi", "profile": "play"}),
        ("run/start", {"message": "hi", "sessionId": "sess_1"}),  # routed to it
        ("worker/restart", {"profile": "play"}),
        ("profile/delete", {"name": "play"}),
        ("profile/create", {"name": "kiwi", "cloneFrom": "play"}),
    ]
    for n, (method, params) in enumerate(asks):
        sup.on_request(host, Request(n, method, params))  # type: ignore[arg-type]
    assert [error["data"]["type"] for _, _, error in host.answers] == ["unknown_profile"] * 5
    assert not [s for s in sup.pool.slots() if s.state != "exited"]


def test_a_delete_whose_thread_cannot_start_fails_and_leaves_the_profile_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(profile_methods, "spawn_thread", no_thread)
    sup.on_request(host, Request(1, "profile/delete", {"name": "play"}))  # type: ignore[arg-type]
    ((_, _, error),) = host.answers
    assert error["code"] == ErrorType.INTERNAL_ERROR.code
    assert sup.closing == {}
    assert sup._key("play", None) == ("play", None)  # not refused as being deleted
    assert (tmp_path / "profiles" / "play").is_dir()


def test_while_a_profile_is_renamed_neither_name_may_start_a_worker_or_be_made_or_moved(
    tmp_path: Path,
) -> None:
    sup, host = supervisor(tmp_path)
    (tmp_path / "profiles" / "kiwi").mkdir()
    sup.routes.add_session("sess_1", ("play", None))
    sup.closing.update({"play": "is being renamed", "job": "is a rename's new name"})
    asks: list[tuple[str, dict[str, Any]]] = [
        ("run/start", {"message": "hi", "profile": "play"}),
        ("run/start", {"message": "hi", "sessionId": "sess_1"}),
        ("profile/create", {"name": "job"}),
        ("profile/create", {"name": "lime", "cloneFrom": "play"}),
        ("profile/rename", {"name": "play", "newName": "lime"}),
        ("profile/rename", {"name": "kiwi", "newName": "job"}),
        ("profile/delete", {"name": "play"}),
    ]
    for n, (method, params) in enumerate(asks):
        sup.on_request(host, Request(n, method, params))  # type: ignore[arg-type]
    assert [error["data"]["type"] for _, _, error in host.answers] == ["unknown_profile"] * 7
    assert not [s for s in sup.pool.slots() if s.state != "exited"]
    assert sorted(p.name for p in (tmp_path / "profiles").iterdir()) == ["kiwi", "play"]


def test_a_rename_to_a_taken_name_or_of_default_is_refused_on_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(profile_methods, "spawn_thread", no_thread)  # none may get that far
    (tmp_path / "profiles" / "dangling").symlink_to(tmp_path / "nowhere")
    asks = [
        ({"name": "play", "newName": "play"}, ErrorType.PROFILE_EXISTS, "play"),
        ({"name": "play", "newName": "dangling"}, ErrorType.PROFILE_EXISTS, "dangling"),
        ({"name": "play", "newName": "default"}, ErrorType.PROFILE_EXISTS, "default"),
        ({"name": "default", "newName": "job"}, ErrorType.INVALID_PROFILE, "default"),
        ({"name": "nobody", "newName": "job"}, ErrorType.UNKNOWN_PROFILE, "nobody"),
        ({"name": "play", "newName": "Job!"}, ErrorType.INVALID_PROFILE, "Job!"),
    ]
    for n, (params, _, _) in enumerate(asks):
        sup.on_request(host, Request(n, "profile/rename", params))  # type: ignore[arg-type]
    got = [(e["code"], e["data"]["profile"]) for _, _, e in host.answers]
    assert got == [(kind.code, name) for _, kind, name in asks]
    assert sup.closing == {}


def test_a_rename_whose_thread_cannot_start_fails_and_leaves_both_names_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(profile_methods, "spawn_thread", no_thread)
    params = {"name": "play", "newName": "job"}
    sup.on_request(host, Request(1, "profile/rename", params))  # type: ignore[arg-type]
    ((_, _, error),) = host.answers
    assert error["code"] == ErrorType.INTERNAL_ERROR.code
    assert sup.closing == {}


def test_a_renamed_profiles_sessions_and_runs_are_routed_to_its_new_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    moved: list[tuple[str, str]] = []

    def rename(python: str, home: Path, env: dict[str, str], name: str, new: str) -> Path:
        moved.append((name, new))
        assert sup.closing == {"play": "is being renamed", "job": "is a rename's new name"}
        (home / "profiles" / name).rename(home / "profiles" / new)
        return home / "profiles" / new

    monkeypatch.setattr(profile_methods, "rename_profile", rename)
    monkeypatch.setattr(profile_methods, "spawn_thread", lambda fn: fn())
    sup.routes.add_session("sess_1", ("play", "k1"))
    sup.routes.add_run("run_1", "sess_2", ("play", None))
    sup.routes.note_seq("run_1", 3, completed=True)
    params = {"name": "play", "newName": "job"}
    sup.on_request(host, Request(1, "profile/rename", params))  # type: ignore[arg-type]
    ((_, result, error),) = host.answers
    assert error is None and moved == [("play", "job")]
    assert result["profile"]["name"] == "job"
    assert result["profile"]["home"] == str(tmp_path / "profiles" / "job")
    assert sup.closing == {}
    assert sup.routes.session("sess_1") == ("job", "k1")
    assert sup.routes.session("sess_2") == ("job", None)
    assert sup._session_key("sess_1", None, None) == ("job", "k1")


def test_a_description_set_over_a_profile_yaml_hermes_cannot_read_starts_it_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(server, "spawn_thread", lambda fn: fn())
    meta = tmp_path / "profiles" / "play" / "profile.yaml"
    meta.write_text("description: [unclosed\n")
    params = {"name": "play", "description": "Games"}
    sup.on_request(host, Request(1, "profile/setDescription", params))  # type: ignore[arg-type]
    ((_, result, error),) = host.answers
    assert error is None and result["profile"]["description"] == "Games"
    assert meta.read_text() == "description: Games\ndescription_auto: false\n"


def test_a_request_arriving_as_its_worker_gets_ready_goes_after_those_waiting_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    starts: list[Callable[[], None]] = []
    monkeypatch.setattr(routing, "spawn_thread", starts.append)
    exec_params = {"command": ["cat"], "profile": "play", "streamId": "s", "interactive": True}
    sup.on_request(host, Request(1, "shell/exec", exec_params))  # type: ignore[arg-type]
    slot = sup.pool.slot("play", None)
    assert slot.state == "starting" and len(starts) == 1
    peer = RecordingPeer()
    slot.peer, slot.state = peer, "ready"  # type: ignore[assignment]  # ready, not delivered yet
    write = {"streamId": "s", "text": "hi", "profile": "play"}
    sup.on_request(host, Request(2, "shell/write", write))  # type: ignore[arg-type]
    assert peer.asked == []  # not before the shell/exec that waits
    monkeypatch.setattr(sup.pool, "ensure_ready", lambda _slot: peer)
    starts[0]()  # the start's thread delivers what waited
    assert [method for method, _ in peer.asked] == ["shell/exec", "shell/write"]


def test_an_initialize_after_the_first_starts_no_second_profile_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sup, host = supervisor(tmp_path)
    sup.state = "uninitialized"
    started: list[Callable[[], None]] = []
    monkeypatch.setattr(server, "spawn_thread", started.append)
    for msg_id in (1, 2, 3):
        sup.on_request(host, Request(msg_id, "initialize", {"protocolVersion": 1}))  # type: ignore[arg-type]
    assert [error for _, _, error in host.answers] == [None, None, None]
    # Each watch pushes every change: a second one would push each twice.
    assert [getattr(fn, "__name__", "") for fn in started] == ["_watch_profiles"]


def test_a_profile_listing_waits_for_the_watch_to_read_its_starting_point(
    tmp_path: Path,
) -> None:
    sup, _host = supervisor(tmp_path)
    waits: list[float | None] = []

    class Settled:
        def wait(self, timeout: float | None = None) -> bool:
            waits.append(timeout)
            return True

    sup._watch_settled = Settled()  # type: ignore[assignment]
    assert [p.name for p in sup._profile_listing().profiles] == ["default", "play"]
    assert waits == [server.WATCH_SETTLE_S]
