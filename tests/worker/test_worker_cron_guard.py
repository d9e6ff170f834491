"""cron_guard with a fake hermes approval module: HERMES_CRON_SESSION reads as
unset, every other variable as hermes reads it; installing twice wraps once."""

from __future__ import annotations

import types
from typing import Any

import pytest

from hermes_stdio.worker import cron_guard


def fake_approval(env: dict[str, str]) -> Any:
    module = types.ModuleType("tools.approval")

    def env_var_enabled(name: str, default: str = "") -> bool:
        return env.get(name, default) in ("1", "true")

    module.env_var_enabled = env_var_enabled  # type: ignore[attr-defined]
    return module


def test_hermes_cron_flag_reads_as_unset_and_every_other_variable_as_before() -> None:
    env = {"HERMES_CRON_SESSION": "1", "HERMES_EXEC_ASK": "1"}
    approval = fake_approval(env)
    assert cron_guard.install(approval)
    assert approval.env_var_enabled("HERMES_CRON_SESSION") is False
    assert approval.env_var_enabled("HERMES_EXEC_ASK") is True
    assert approval.env_var_enabled("HERMES_GATEWAY_SESSION") is False
    assert approval.env_var_enabled("HERMES_GATEWAY_SESSION", "true") is True
    env["HERMES_CRON_SESSION"] = "true"  # set later, as hermes' run_job does
    assert approval.env_var_enabled("HERMES_CRON_SESSION") is False


def test_installing_twice_wraps_once() -> None:
    approval = fake_approval({})
    cron_guard.install(approval)
    first = approval.env_var_enabled
    assert cron_guard.install(approval)
    assert approval.env_var_enabled is first


def test_a_module_without_the_reader_is_left_alone_and_said_so(
    capfd: pytest.CaptureFixture[str],
) -> None:
    approval = types.ModuleType("tools.approval")
    assert cron_guard.install(approval) is False
    assert not hasattr(approval, "env_var_enabled")
    assert "approvals changed" in capfd.readouterr().err
