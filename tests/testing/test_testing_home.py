"""The offline environment: hermes' internet lookups fail at once, locally; local servers answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hermes_stdio.testing.home import DEAD_PROXY, make_home, offline_env
from hermes_stdio.testing.llm_server import ScriptedLLM

CHILD = r"""
import json, sys, urllib.request
import httpx, requests

base = sys.argv[1]
out = {}
for name, fetch in [
    ("requests", lambda url: requests.get(url, timeout=10).status_code),
    ("httpx", lambda url: httpx.get(url, timeout=10).status_code),
    ("urllib", lambda url: urllib.request.urlopen(url, timeout=10).status),
]:
    for where, url in [("internet", "https://models.dev/api.json"), ("local", base + "/models")]:
        try:
            out[f"{name} {where}"] = fetch(url)
        except Exception as exc:
            out[f"{name} {where}"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


def test_internet_lookups_go_to_a_dead_local_proxy_and_local_servers_are_reached_directly(
    tmp_path: Path,
) -> None:
    with ScriptedLLM() as llm:
        env = offline_env(make_home(tmp_path, llm.base_url))
        done = subprocess.run(
            [sys.executable, "-c", CHILD, llm.base_url],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    for client in ("requests", "httpx", "urllib"):
        assert got[f"{client} local"] == 200
        # Refused by 127.0.0.1:9, not a name the resolver failed to find.
        assert "refused" in str(got[f"{client} internet"]).lower(), got


def test_a_proxy_or_no_proxy_the_parent_had_is_replaced_in_any_case(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("https_proxy", "http://corporate:3128")
    monkeypatch.setenv("NO_PROXY", "*")
    env = offline_env(tmp_path)
    assert env["https_proxy"] == env["HTTPS_PROXY"] == DEAD_PROXY
    assert env["NO_PROXY"] == env["no_proxy"] == "127.0.0.1,localhost,::1"


def test_the_offline_home_directory_is_empty_and_beside_the_hermes_home_not_the_users(
    monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", "/root")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/root/.config")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    home = make_home(tmp_path, "http://127.0.0.1:1/v1")
    env = offline_env(home)
    assert env["HOME"] == str(tmp_path / "user-home")
    assert list(Path(env["HOME"]).iterdir()) == []
    assert "XDG_CONFIG_HOME" not in env
    # The one thing kept: the user's cache, where a worker's tool-scan verdicts live.
    assert env["XDG_CACHE_HOME"] == "/root/.cache"
    monkeypatch.setenv("XDG_CACHE_HOME", "/var/cache/someone")
    assert offline_env(home)["XDG_CACHE_HOME"] == "/var/cache/someone"


def test_a_login_shell_started_with_the_offline_environment_reads_no_user_dotfiles(
    monkeypatch, tmp_path: Path
) -> None:
    # A stand-in for the user's home, whose login profile offline_env must keep away.
    real_home = tmp_path / "real"
    real_home.mkdir()
    (real_home / ".bash_profile").write_text("echo user-dotfile-ran\n")
    monkeypatch.setenv("HOME", str(real_home))
    env = offline_env(make_home(tmp_path / "t", "http://127.0.0.1:1/v1"))
    done = subprocess.run(
        ["bash", "-l", "-c", "echo $HOME"], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.stdout.strip() == str(tmp_path / "t" / "user-home")
    assert "user-dotfile-ran" not in done.stdout
