"""reference/complete through the real binary and real hermes-agent: the @
references a user is typing are completed in the workspace their turn would
use, and nothing is offered that the turn would refuse to attach."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import refused


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel in ["src/main.py", "src/app_config.py", "README.md", "build/out.o", "conf/site.yaml"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".gitignore").write_text("build/\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def complete(host: HostClient, text: str, **params: Any) -> dict[str, Any]:
    return host.request("reference/complete", {"text": text, **params})  # type: ignore[no-any-return]


def texts(host: HostClient, text: str, **params: Any) -> list[str]:
    return [item["text"] for item in complete(host, text, **params)["items"]]


def test_a_folder_being_typed_completes_to_its_entries(host: HostClient, repo: Path) -> None:
    assert complete(host, "@file:src/ma", workspace=str(repo)) == {
        "items": [
            {"text": "@file:src/main.py", "label": "main.py", "detail": None, "kind": "file"}
        ],
        "incomplete": False,
        "workspace": str(repo),
    }
    assert texts(host, "@folder:", workspace=str(repo)) == [
        "@folder:build/",
        "@folder:conf/",
        "@folder:src/",
    ]


def test_a_word_completes_to_keywords_and_to_files_found_by_name(
    host: HostClient, repo: Path
) -> None:
    assert texts(host, "@", workspace=str(repo))[:2] == ["@diff", "@staged"]
    found = complete(host, "@conf", workspace=str(repo))["items"]
    # git's view: the ignored build/ is not searched
    assert [(i["text"], i["detail"]) for i in found] == [
        ("@file:src/app_config.py", "src"),
    ]
    assert texts(host, "@out", workspace=str(repo)) == []


def test_a_sessions_workspace_is_used_and_remembered_by_the_next_worker(
    host: HostClient, llm: ScriptedLLM, repo: Path, home: Path
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "workspace": str(repo)})
    host.wait_run_completed(run["runId"])
    session = run["sessionId"]
    assert complete(host, "@mai", sessionId=session)["workspace"] == str(repo)
    assert texts(host, "@mai", sessionId=session) == ["@file:src/main.py"]

    host.request("worker/restart", {})
    assert complete(host, "@mai", sessionId=session)["workspace"] == str(repo)
    assert complete(host, "@mai", sessionId="sess_nobody_has")["workspace"] == str(home)
    # A workspace given wins over the session's.
    assert complete(host, "@", sessionId=session, workspace=str(repo / "src"))["workspace"] == str(
        repo / "src"
    )


def test_nothing_of_another_profile_nor_a_credential_file_is_offered(
    host: HostClient, home: Path
) -> None:
    # The default profile's home is the Hermes root, which holds every other profile.
    (home / "profiles" / "work" / "work_notes.txt").write_text("x\n")
    (home / "notes.txt").write_text("x\n")
    assert complete(host, "@file:")["workspace"] == str(home)
    offered = texts(host, "@file:")
    assert "@file:notes.txt" in offered
    assert not [t for t in offered if "profiles" in t]
    assert texts(host, "@file:profiles/") == []
    assert texts(host, "@notes") == ["@file:notes.txt"]
    assert texts(host, "@file:.e") == []  # the profile's .env
    assert texts(host, "@auth") == []

    work = str(home / "profiles" / "work")
    assert texts(host, "@file:", profile="play", workspace=work) == []
    assert texts(host, "@work_n", profile="play", workspace=work) == []
    assert texts(host, "@work_n", profile="work", workspace=work) == ["@file:work_notes.txt"]


def test_bad_completion_requests_are_refused_as_invalid_params(
    host: HostClient, repo: Path
) -> None:
    for params, field in [
        ({"text": "file:src/"}, "params.text"),
        ({"text": "@", "limit": 0}, "params.limit"),
        ({"text": "@", "limit": 201}, "params.limit"),
        ({"text": "@", "workspace": "repo"}, "params.workspace"),
        ({"text": "@", "workspace": str(repo / "README.md")}, "params.workspace"),
        ({"text": "@fi\nle"}, "params.text"),
        ({"text": ""}, "params.text"),
    ]:
        err = refused(host, "reference/complete", params)
        assert err.kind is ErrorType.INVALID_PARAMS, params
        assert err.data["field"] == field, params
