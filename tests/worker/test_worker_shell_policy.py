"""shell_policy.ShellPolicy: hermes' rating of a host's command, on fake modules and,
in a child process (importing hermes changes process-wide state), on the real ones."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import hermes_probe
import yaml

from hermes_stdio.testing.home import make_home
from hermes_stdio.worker.shell_policy import ShellPolicy, line_of


def approval(**private: Any) -> SimpleNamespace:
    """A ``tools.approval`` that flags lines with "hard" (hardline) or "rm" (dangerous)."""
    return SimpleNamespace(
        detect_hardline_command=lambda c: (True, "hard one") if "hard" in c else (False, None),
        detect_dangerous_command=lambda c: (
            (True, "rm", "deletes") if "rm" in c else (False, None, None)
        ),
        **private,
    )


def test_a_shells_script_is_rated_with_its_arguments_and_any_other_argv_joined() -> None:
    assert line_of(["bash", "-c", "git status; ls"]) == "git status; ls"
    assert line_of(["/bin/sh", "-ec", 'eval "$1"', "_", "rm -rf x"]) == "eval \"$1\" _ 'rm -rf x'"
    # Anything else is rated as a shell would read it, -c and all (hermes flags that).
    assert line_of(["bash", "--rcfile", "x", "-c", "ls"]) == "bash --rcfile x -c ls"
    assert line_of(["env", "bash", "-c", "ls"]) == "env bash -c ls"
    assert line_of(["rm", "-rf", "my dir"]) == "rm -rf 'my dir'"
    assert line_of(["python3", "-c"]) == "python3 -c"


def test_hardline_is_blocked_and_a_dangerous_pattern_is_dangerous() -> None:
    policy = ShellPolicy(approval(), None)
    assert policy.refusal("hard rm") == ("blocked", "hard one")
    assert policy.refusal("rm -r x") == ("dangerous", "deletes")
    assert policy.refusal("ls") is None


def test_the_profiles_deny_rules_block_and_its_allowlist_waives_a_rating() -> None:
    policy = ShellPolicy(
        approval(
            _match_user_deny_rule=lambda c: "touch *" if c.startswith("touch") else None,
            _command_matches_permanent_allowlist=lambda c: c == "rm -r build",
        ),
        None,
    )
    assert policy.refusal("touch x") == ("blocked", "the profile's approvals.deny rule 'touch *'")
    assert policy.refusal("rm -r build") is None
    assert policy.refusal("rm -r src") == ("dangerous", "deletes")


def test_without_hermes_private_rules_the_public_checks_still_apply() -> None:
    policy = ShellPolicy(approval(_match_user_deny_rule=None), None)
    assert policy.refusal("touch x") is None
    assert policy.refusal("rm -r build") == ("dangerous", "deletes")


_PROBE = r"""
import json, os
os.environ["OPENROUTER_API_KEY"] = "sk-provider"
os.environ["MY_OWN"] = "mine"
from tools import approval
from tools.environments import local
from hermes_stdio.worker.shell_policy import ShellPolicy, line_of

policy = ShellPolicy(approval, local)
rate = lambda argv: policy.refusal(line_of(argv))
env = policy.env()
print(json.dumps({
    "hardline": rate(["bash", "-c", "rm -rf /"]),
    "dangerous": rate(["bash", "-c", "git reset --hard"]),
    "script": rate(["bash", "-c", "pwd; ls -la"]),
    "hidden": rate(["bash", "-c", 'eval "$1"', "_", "rm -rf /"]),
    "wrapped": rate(["env", "bash", "-c", "ls"]),
    "denied": rate(["touch", "marker"]),
    "safe": rate(["git", "status"]),
    "provider_key": env.get("OPENROUTER_API_KEY"),
    "own": env.get("MY_OWN"),
}))
"""


def test_hermes_real_rules_rate_commands_and_its_env_keeps_provider_keys_out(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["approvals"]["deny"] = ["touch *"]
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    out = hermes_probe.probe(home, _PROBE)
    assert out["hardline"][0] == "blocked"
    assert out["dangerous"][0] == "dangerous" and "reset" in out["dangerous"][1]
    assert out["denied"] == ["blocked", "the profile's approvals.deny rule 'touch *'"]
    assert out["safe"] is None and out["script"] is None
    assert out["hidden"][0] in ("blocked", "dangerous")
    assert out["wrapped"][0] == "dangerous"  # hermes' -c flag rule: what runs is hidden
    assert out["provider_key"] is None and out["own"] == "mine"
