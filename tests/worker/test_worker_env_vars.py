"""worker/env_vars.py with a fake hermes: what a host is shown of each variable
(never a secret's value), and what it may change."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.worker.config_file import ReadOnly
from hermes_stdio.worker.env_vars import EnvVars, HermesEnv, Refused

KNOWN = {
    "OPENROUTER_API_KEY": {
        "description": "OpenRouter API key",
        "url": "https://openrouter.ai/keys",
        "password": True,
        "category": "provider",
        "advanced": True,
    },
    "NOUS_BASE_URL": {"description": "Nous base URL", "password": False, "category": "provider"},
    "GITHUB_TOKEN": {"description": "GitHub token", "password": True, "category": "tool"},
}


class FakeHermes:
    def __init__(self) -> None:
        self.dotenv: dict[str, str] = {"ZED": "z-secret", "NOUS_BASE_URL": "http://x/v1"}
        self.managed: dict[str, str] = {}
        self.environ: dict[str, str] = {"GITHUB_TOKEN": "gh-shell", "ZED": "z-secret"}
        self.locked: str | None = None
        self.calls: list[tuple[str, ...]] = []

    def check(self, name: str) -> None:
        if name in ("PATH", "LD_PRELOAD") or not name.isidentifier():
            raise ValueError(f"{name} is refused")

    def save(self, name: str, value: str) -> None:
        self.calls.append(("save", name, value))
        self.dotenv[name] = self.environ[name] = value

    def remove(self, name: str) -> bool:
        self.calls.append(("remove", name))
        self.environ.pop(name, None)
        return self.dotenv.pop(name, None) is not None

    def env(self, home: Path) -> EnvVars:
        return EnvVars(
            HermesEnv(
                home=home,
                known=KNOWN,
                dotenv=lambda: self.dotenv,
                managed=lambda: self.managed,
                read_only=lambda: self.locked,
                check=self.check,
                entries=lambda name, value: 2 if "GITHUB_TOKEN=" in value else 1,
                save=self.save,
                remove=self.remove,
                environ=self.environ,
            )
        )


@pytest.fixture
def hermes() -> FakeHermes:
    return FakeHermes()


def shown(env: EnvVars) -> dict[str, dict[str, Any]]:
    return {v.name: {"source": v.source, "value": v.value} for v in env.listed()}


def test_known_variables_come_first_in_hermes_order_then_the_profiles_own(
    hermes: FakeHermes, tmp_path: Path
) -> None:
    names = [v.name for v in hermes.env(tmp_path).listed()]
    assert names == ["OPENROUTER_API_KEY", "NOUS_BASE_URL", "GITHUB_TOKEN", "ZED"]


def test_the_source_is_the_managed_env_then_the_profiles_then_the_environment(
    hermes: FakeHermes, tmp_path: Path
) -> None:
    hermes.managed = {"NOUS_BASE_URL": "http://admin/v1"}
    assert shown(hermes.env(tmp_path)) == {
        "OPENROUTER_API_KEY": {"source": None, "value": None},
        "NOUS_BASE_URL": {"source": "managed", "value": "http://admin/v1"},  # not a secret
        "GITHUB_TOKEN": {"source": "environment", "value": None},  # a secret
        "ZED": {"source": "profile", "value": None},  # unknown: a secret
    }


def test_what_hermes_says_of_a_variable_is_shown(hermes: FakeHermes, tmp_path: Path) -> None:
    [openrouter, *_] = hermes.env(tmp_path).listed()
    assert (openrouter.description, openrouter.category, openrouter.url) == (
        "OpenRouter API key",
        "provider",
        "https://openrouter.ai/keys",
    )
    assert (openrouter.secret, openrouter.advanced) == (True, True)
    zed = hermes.env(tmp_path).describe("ZED")
    assert (zed.description, zed.category, zed.url, zed.secret) == ("", None, None, True)


def test_set_and_remove_go_through_hermes_and_give_the_variable_now(
    hermes: FakeHermes, tmp_path: Path
) -> None:
    env = hermes.env(tmp_path)
    assert env.set("NOUS_BASE_URL", "http://new/v1").value == "http://new/v1"
    removed, now = env.remove("ZED")
    assert removed and now.source is None
    removed, _ = env.remove("ZED")
    assert not removed
    assert hermes.calls == [
        ("save", "NOUS_BASE_URL", "http://new/v1"),
        ("remove", "ZED"),
        ("remove", "ZED"),
    ]


def test_a_locked_install_or_a_managed_name_is_read_only_and_changes_nothing(
    hermes: FakeHermes, tmp_path: Path
) -> None:
    hermes.managed = {"GITHUB_TOKEN": "gh-admin"}
    env = hermes.env(tmp_path)
    with pytest.raises(ReadOnly):
        env.set("GITHUB_TOKEN", "mine")
    with pytest.raises(ReadOnly):
        env.remove("GITHUB_TOKEN")
    hermes.locked = "Homebrew"
    with pytest.raises(ReadOnly, match="Homebrew"):
        env.set("ZED", "x")
    assert hermes.calls == []


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("PATH", "/evil", "params.name"),
        ("1BAD", "x", "params.name"),
        ("ZED", "x" * 65537, "params.value"),
        ("ZED", "a\nGITHUB_TOKEN=gh-evil", "params.value"),  # read back as two
        ("ZED", "sk-\u0430bc", "params.value"),  # a Cyrillic a pasted for a Latin one
        ("ZED", "a\x00b", "params.value"),  # no environment can hold it
    ],
)
def test_what_hermes_refuses_or_would_misread_is_refused_and_saves_nothing(
    hermes: FakeHermes, tmp_path: Path, name: str, value: str, field: str
) -> None:
    with pytest.raises(Refused) as err:
        hermes.env(tmp_path).set(name, value)
    assert err.value.field == field
    assert hermes.calls == []


def test_changes_from_two_threads_never_overlap(hermes: FakeHermes, tmp_path: Path) -> None:
    busy, overlapped = threading.Lock(), []
    saved = hermes.save

    def save(name: str, value: str) -> None:
        if not busy.acquire(blocking=False):
            overlapped.append(name)
            return
        try:
            time.sleep(0.001)  # widen the window a second writer would hit
            saved(name, value)
        finally:
            busy.release()

    hermes.save = save  # type: ignore[method-assign]

    def work(prefix: str) -> None:
        env = hermes.env(tmp_path)  # one per request, as the worker makes them
        for i in range(20):
            env.set(f"{prefix}_{i}", "v")

    threads = [threading.Thread(target=work, args=(p,)) for p in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert overlapped == []
    assert len([c for c in hermes.calls if c[0] == "save"]) == 40
