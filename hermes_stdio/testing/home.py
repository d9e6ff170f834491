"""Temporary Hermes homes wired to the scripted LLM, for tests and benchmarks.

Contract: ``make_home(root, base_url, profiles=...)`` writes a Hermes home
whose default profile and each named profile use the ``custom`` provider at
``base_url``, with the environment probe, tirith and lazy installs switched
off so nothing leaves 127.0.0.1, and session titling off so no background
call takes a scripted reply. ``offline_env()`` is the matching process
environment; it also sends hermes' own internet lookups to a dead local proxy,
and gives the process an empty ``HOME`` beside the Hermes home, so the user's
dotfiles never reach the agent's login shells (only the user's cache directory
is kept, as ``XDG_CACHE_HOME``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml


def profile_config(base_url: str, model: str = "test-model") -> dict[str, Any]:
    return {
        "model": {
            "provider": "custom",
            "base_url": base_url,
            "default": model,
            "context_length": 131072,
        },
        "agent": {"environment_probe": False},
        "security": {"tirith_enabled": False, "allow_lazy_installs": False},
        # "smart" approvals would ask the (scripted) model first and eat a scripted reply.
        "approvals": {"mode": "manual"},
        # So would titling a session after its first exchange (in the background).
        "auxiliary": {"title_generation": {"enabled": False}},
        # And hermes' background memory and skill review every 10 turns, on a thread
        # that overlaps the next turn (in the bench: a peer's stream mid-measurement).
        "memory": {"nudge_interval": 0},
        "skills": {"creation_nudge_interval": 0},
    }


def make_home(
    root: Path,
    base_url: str,
    profiles: dict[str, dict[str, str]] | None = None,
    default_env: dict[str, str] | None = None,
) -> Path:
    """``profiles`` maps profile name -> its .env values."""
    home = root / "hermes-home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump(profile_config(base_url)), encoding="utf-8")
    if default_env:
        (home / ".env").write_text("".join(f"{k}={v}\n" for k, v in default_env.items()))
    for name, env in (profiles or {}).items():
        path = home / "profiles" / name
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.yaml").write_text(
            yaml.safe_dump(profile_config(base_url)), encoding="utf-8"
        )
        (path / ".env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    return home


# hermes looks things up on the internet as it works (models.dev for model facts,
# its docs site, GitHub). Offline, each try first asks a DNS server that is not on
# this machine, and may wait seconds for it. Through a proxy on a local port nobody
# listens on, every proxy-aware client (requests, httpx, urllib) fails at once
# instead, and sends nothing off 127.0.0.1; local servers are reached directly.
DEAD_PROXY = "http://127.0.0.1:9"
LOCAL_HOSTS = "127.0.0.1,localhost,::1"
PROXY_NAMES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def offline_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    # hermes' terminal tool runs `bash -l`, which sources the user's ~/.profile and
    # ~/.bashrc: a slow or locked tool there (pyenv waits 60 s on a stale lock) would
    # stall every tool call, and what ran would depend on the machine.
    user_home = home.parent / "user-home"
    user_home.mkdir(parents=True, exist_ok=True)
    # Caches are disposable by definition and change nothing that runs; keeping the
    # user's spares every cold worker its tool scan (the worker's scan cache lives
    # there), as it would a real host's.
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HERMES_", "TERMINAL_", "XDG_"))
        and k.upper() not in (*PROXY_NAMES, "NO_PROXY")
    }
    env.update(
        {
            "HOME": str(user_home),
            "XDG_CACHE_HOME": cache,
            "HERMES_HOME": str(home),
            "TIRITH_ENABLED": "0",
            "HERMES_DISABLE_LAZY_INSTALLS": "1",
            **{name: DEAD_PROXY for name in PROXY_NAMES},
            **{name.lower(): DEAD_PROXY for name in PROXY_NAMES},
            "NO_PROXY": LOCAL_HOSTS,
            "no_proxy": LOCAL_HOSTS,
            **(extra or {}),
        }
    )
    return env
