"""Profiles through the real binary: profile/list names the profiles a host can name,
read from disk without starting a worker; no profile's agent reads or writes another
profile's files, however the profiles directory is laid out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError, encode_frame, encode_request

from .conftest import StartHost, started_worker, tool_result


def test_profile_list_names_every_profile_a_request_may_name_without_starting_a_worker(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    (home / "profiles" / "work" / "profile.yaml").write_text("description: Day job\n")
    (home / "profiles" / "Not-Valid").mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", home / "profiles" / "escape")
    listed = host.request("profile/list")["profiles"]
    assert listed == [
        {
            "name": name,
            "home": str(path),
            "model": "test-model",
            "provider": "custom",
            "description": "Day job" if name == "work" else "",
            "workers": 0,
            "problem": None,
            "active": name == "default",  # no active_profile file: hermes' default
        }
        for name, path in [
            ("default", home),
            ("play", home / "profiles" / "play"),
            ("work", home / "profiles" / "work"),
        ]
    ]
    assert host.request("supervisor/status")["workers"] == []


def test_a_profile_made_or_changed_on_disk_is_pushed_and_profile_list_shows_it(
    host: HostClient, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    made = home / "profiles" / ".fun-new"  # not a profile's name: not listed
    made.mkdir()
    (made / "config.yaml").write_text("model: {default: m9}\n")
    made.rename(home / "profiles" / "fun")  # one change: the whole profile at once
    host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    listed = {p["name"]: p for p in host.request("profile/list")["profiles"]}
    assert listed["fun"]["model"] == "m9"
    (home / "profiles" / "fun" / "profile.yaml").write_text("description: Games\n")
    note = host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    assert note.params == {}
    assert {p["name"]: p for p in host.request("profile/list")["profiles"]}["fun"][
        "description"
    ] == "Games"
    assert (
        len([n for _, n in host.received if getattr(n, "method", "") == "profile/listChanged"]) == 2
    )


def test_profile_list_counts_a_profiles_running_workers(host: HostClient, llm: ScriptedLLM) -> None:
    started_worker(host, llm, "play")
    counts = {p["name"]: p["workers"] for p in host.request("profile/list")["profiles"]}
    assert counts == {"default": 0, "play": 1, "work": 0}


def tool_call(host: HostClient, llm: ScriptedLLM, profile: str, name: str, args: dict) -> str:
    llm.enqueue(Reply.tool_call(name, args), Reply.text(["done"]))
    run = host.request("run/start", {"message": "go", "profile": profile})
    host.wait_run_completed(run["runId"])
    return tool_result(host, run["runId"])


def test_no_profiles_agent_writes_another_profiles_files(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    # Another profile's config.yaml holds its approval settings.
    before = (
        (home / "config.yaml").read_text(),
        (home / "profiles" / "work" / "config.yaml").read_text(),
    )
    off = "approvals: {mode: 'off'}\n"
    for profile, target in (
        ("work", home / "config.yaml"),
        ("default", home / "profiles" / "work" / "config.yaml"),
    ):
        result = tool_call(host, llm, profile, "write_file", {"path": str(target), "content": off})
        assert "another Hermes profile" in result
    assert (
        (home / "config.yaml").read_text(),
        (home / "profiles" / "work" / "config.yaml").read_text(),
    ) == before
    own = home / "profiles" / "work" / "notes.md"
    tool_call(host, llm, "work", "write_file", {"path": str(own), "content": "mine\n"})
    assert own.read_text() == "mine\n"


def test_a_symlinked_profiles_directory_does_not_open_the_default_profiles_files(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    (home / "auth.json").write_text('{"token": "DEFAULT-TOKEN"}')
    moved = tmp_path / "elsewhere" / "deep" / "profiles"  # two levels up is not the home
    moved.parent.mkdir(parents=True)
    (home / "profiles").rename(moved)
    (home / "profiles").symlink_to(moved)
    host = start_host()
    host.initialize()
    result = tool_call(host, llm, "work", "read_file", {"path": str(home / "auth.json")})
    assert "DEFAULT-TOKEN" not in result


def test_a_symlink_loop_under_profiles_is_left_out_and_naming_it_is_invalid_profile(
    host: HostClient, home: Path
) -> None:
    (home / "profiles" / "loop").symlink_to(home / "profiles" / "loop")
    names = [p["name"] for p in host.request("profile/list")["profiles"]]
    assert names == ["default", "play", "work"]
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "hi", "profile": "loop"})
    assert err.value.kind is ErrorType.INVALID_PROFILE


HOSTILE = {
    "deep": b"\nhostile: " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "broken": b"\nhostile: [unclosed\n",  # hermes would run on its defaults
}


FILE_PUSH = {"config.yaml": "config", ".env": "env", "SOUL.md": "soul"}


@pytest.mark.parametrize(
    "hostile",
    [
        "fifo config.yaml",
        "fifo .env",
        "fifo SOUL.md",
        "deep config.yaml",
        "broken config.yaml",
        "list config.yaml",
    ],
)
def test_a_profile_whose_worker_would_hang_crash_or_ignore_its_config_is_profile_unreadable(
    any_host: HostClient, llm: ScriptedLLM, home: Path, hostile: str
) -> None:
    # Unchecked, a FIFO left every run of the profile waiting for ever, a deep
    # config.yaml killed its worker (libyaml overflowed its stack: SIGSEGV), and
    # hermes ran on its defaults when config.yaml was not YAML it could use.
    any_host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    kind, file = hostile.split(" ")
    path = home / "profiles" / "work" / file
    saved = path.read_bytes() if path.exists() else b""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "list":
        path.write_bytes(b"- model: m1\n")
    else:
        path.write_bytes(saved + HOSTILE[kind])
    with pytest.raises(RpcError) as err:
        any_host.request("run/start", {"message": "hi", "profile": "work"}, timeout=10)
    assert err.value.kind is ErrorType.PROFILE_UNREADABLE
    assert err.value.data == {"profile": "work", "file": file}
    # No run; the profile list tells of the problem (pushed: it changed). The
    # file's own change may be pushed too (config/changed and the like), whenever
    # the watch's settling lets it through.
    pushed = {m.method for _, m in any_host.received if isinstance(m, Notification)}
    assert pushed <= {"profile/listChanged", f"{FILE_PUSH[file]}/changed"}
    any_host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    listed = {p["name"]: p["problem"] for p in any_host.request("profile/list")["profiles"]}
    assert listed["work"].startswith(f"{file} ") and listed["work"] in err.value.message
    assert listed["play"] is None
    assert started_worker(any_host, llm, "play")  # other profiles are untouched

    path.unlink()
    path.write_bytes(saved)  # fixed: pushed, and the next request starts the worker
    any_host.wait_for(lambda n: n.method == "profile/listChanged", timeout=20)
    assert {p["name"]: p["problem"] for p in any_host.request("profile/list")["profiles"]} == (
        dict.fromkeys(["default", "play", "work"])
    )
    assert started_worker(any_host, llm, "work")


def test_a_megabyte_value_in_one_profiles_env_stalls_no_other_profiles_start(
    home: Path, start_host: StartHost, llm: ScriptedLLM
) -> None:
    # Each start reads every other profile's .env; that read was quadratic in a long
    # value and held the interpreter lock, so the whole supervisor froze (> 30 s).
    env = home / "profiles" / "work" / ".env"
    env.write_text(env.read_text() + "BIG_CERT=" + "QUJD" * 250_000 + "==\n")
    host = start_host()
    host.initialize()
    assert started_worker(host, llm, "play")
    assert host.request("supervisor/status", timeout=10)["pid"] == host.proc.pid


def test_a_burst_of_profile_lists_is_answered_once_each_and_a_later_one_sees_a_new_profile(
    host: HostClient, home: Path
) -> None:
    ids = [f"list-{i}" for i in range(300)]
    # In one write: most arrive while the first listing is being read, and share the next.
    host.write_raw(b"".join(encode_frame(encode_request(i, "profile/list", {})) for i in ids))
    answers = [host.response(i, timeout=60) for i in ids]
    assert [a.error for a in answers] == [None] * len(ids)
    names = {tuple(p["name"] for p in a.result["profiles"]) for a in answers}
    assert names == {("default", "play", "work")}
    (home / "profiles" / "new").mkdir()
    listed = host.request("profile/list")["profiles"]
    assert [p["name"] for p in listed] == ["default", "new", "play", "work"]
    assert not [line for line in host.stderr_lines if "unknown id" in line]
