"""A profile's shell hooks (``hooks:`` in its config.yaml) through the real binary and real
hermes-agent: the ones its user allowed run in its worker, as in hermes' CLI and
gateway, told the session's directory; one nobody allowed never runs. A plugin's hook
that sends a tool call for approval asks the host."""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM


def hook_script(tmp_path: Path, answer: dict[str, Any]) -> tuple[str, Path]:
    """A hook command that keeps each payload it is given and answers ``answer``."""
    tmp_path.mkdir(exist_ok=True)
    seen = tmp_path / "payloads.jsonl"
    script = tmp_path / "hook.py"
    script.write_text(
        "import sys\n"
        f"with open({str(seen)!r}, 'a') as out:\n"
        "    out.write(sys.stdin.read().replace('\\n', ' ') + '\\n')\n"
        f"print({json.dumps(answer)!r})\n"
    )
    return f"{sys.executable} {script}", seen


def configure(home: Path, hooks: dict[str, Any], **settings: Any) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["hooks"] = hooks
    config.update(settings)
    (home / "config.yaml").write_text(yaml.safe_dump(config))


def payloads(seen: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in seen.read_text().splitlines()] if seen.exists() else []


def terminal_turn(host: HostClient, llm: ScriptedLLM, workspace: Path) -> str:
    """One turn whose agent runs ``echo hi`` in ``workspace``; what the tool gave."""
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["ok"]))
    run = host.request("run/start", {"message": "go", "workspace": str(workspace)})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    [tool] = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    return str(tool["content"])


def test_an_allowed_pre_tool_call_hook_blocks_the_tool_and_is_told_the_sessions_directory(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    command, seen = hook_script(tmp_path, {"decision": "block", "reason": "no shells today"})
    configure(
        home,
        {"pre_tool_call": [{"matcher": "terminal", "command": command}]},
        hooks_auto_accept=True,
    )
    workspace = tmp_path / "project"
    workspace.mkdir()

    result = terminal_turn(host, llm, workspace)
    assert "no shells today" in result and "hi\n" not in result
    [payload] = payloads(seen)
    assert (payload["hook_event_name"], payload["tool_name"]) == ("pre_tool_call", "terminal")
    assert payload["tool_input"]["command"] == "echo hi"
    assert payload["cwd"] == str(workspace)


def test_a_hook_runs_in_the_sessions_directory_so_a_relative_hook_is_the_projects(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    (workspace / "hooks").mkdir(parents=True)
    ran = tmp_path / "ran-in"
    (workspace / "hooks" / "check.py").write_text(
        f"import os, sys\nsys.stdin.read()\nopen({str(ran)!r}, 'w').write(os.getcwd())\n"
    )
    hook = {"matcher": "terminal", "command": f"{sys.executable} hooks/check.py"}
    configure(home, {"pre_tool_call": [hook]}, hooks_auto_accept=True)

    assert "hi" in terminal_turn(host, llm, workspace)
    assert ran.read_text() == str(workspace)


def test_run_interrupt_cuts_a_running_pre_tool_call_hook_short_and_its_call_does_not_run(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    started = tmp_path / "hook-started"
    os.mkfifo(started)
    script = tmp_path / "slow_hook.py"
    script.write_text(  # tells its pid, then takes far longer than this test waits
        "import os, sys, time\n"
        "sys.stdin.read()\n"
        f"with open({str(started)!r}, 'w') as out:\n"
        "    out.write(str(os.getpid()))\n"
        "time.sleep(300)\n"
        "print('{}')\n"
    )
    hook = {"matcher": "terminal", "command": f"{sys.executable} {script}", "timeout": 300}
    configure(home, {"pre_tool_call": [hook]}, hooks_auto_accept=True)
    workspace = tmp_path / "project"
    workspace.mkdir()
    reader = os.open(started, os.O_RDONLY | os.O_NONBLOCK)
    llm.enqueue(Reply.tool_call("terminal", {"command": "touch ran"}), Reply.text(["ok"]))

    run = host.request("run/start", {"message": "go", "workspace": str(workspace)})
    assert select.select([reader], [], [], 60)[0]
    hook_process = os.pidfd_open(int(os.read(reader, 64)))  # readable once it exits
    os.close(reader)
    host.request("run/interrupt", {"runId": run["runId"]})
    assert host.wait_run_completed(run["runId"], timeout=30).params["status"] == "interrupted"
    assert not (workspace / "ran").exists()
    assert select.select([hook_process], [], [], 0)[0]  # stopped before the run ended
    os.close(hook_process)


def test_a_hook_the_user_allowed_earlier_runs_and_one_nobody_allowed_does_not(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    allowed, seen_allowed = hook_script(tmp_path / "a", {})
    unknown, seen_unknown = hook_script(tmp_path / "b", {"decision": "block", "reason": "x"})
    configure(
        home,
        {"pre_tool_call": [{"command": allowed}], "post_tool_call": [{"command": unknown}]},
    )
    # What hermes' CLI records once its user says yes at its prompt.
    entry = {"event": "pre_tool_call", "command": allowed, "approved_at": "2026-12-01T00:00:00Z"}
    (home / "shell-hooks-allowlist.json").write_text(json.dumps({"approvals": [entry]}))

    assert "hi" in terminal_turn(host, llm, tmp_path)
    assert [p["hook_event_name"] for p in payloads(seen_allowed)] == ["pre_tool_call"]
    assert payloads(seen_unknown) == []
    host.wait_stderr(lambda line: "not allowlisted" in line and unknown in line)


def test_a_pre_llm_call_hooks_context_reaches_the_model(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    command, seen = hook_script(tmp_path, {"context": "HOOK-CONTEXT: it is Friday"})
    configure(home, {"pre_llm_call": [{"command": command}]}, hooks_auto_accept=True)
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "what day is it", "workspace": str(tmp_path)})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    assert "HOOK-CONTEXT: it is Friday" in json.dumps(llm.requests[-1]["messages"])
    assert [p["cwd"] for p in payloads(seen)] == [str(tmp_path)]


def gate_plugin(home: Path, answer: dict[str, Any]) -> None:
    """A user plugin whose pre_tool_call hook answers ``answer`` for terminal calls."""
    plugin = home / "plugins" / "gate"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: gate\nversion: '1'\nhooks:\n  - pre_tool_call\n")
    (plugin / "__init__.py").write_text(
        "def register(ctx):\n"
        "    def gate(tool_name=None, **kw):\n"
        f"        return {answer!r} if tool_name == 'terminal' else None\n"
        "    ctx.register_hook('pre_tool_call', gate)\n"
    )
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["plugins"] = {"enabled": ["gate"]}
    (home / "config.yaml").write_text(yaml.safe_dump(config))


def test_a_plugins_hook_that_asks_for_approval_sends_the_tool_call_to_the_host(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    gate_plugin(home, {"action": "approve", "message": "shell needs a yes"})
    outputs = []
    for decision in ("deny", "once"):
        llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["ok"]))
        run = host.request("run/start", {"message": "go", "workspace": str(tmp_path)})
        ask = host.wait_for(
            lambda n, r=run: n.method == "approval/requested" and n.params["runId"] == r["runId"],
            timeout=60,
        )
        assert ask.params["command"] == "<terminal> (plugin approval rule)"
        assert ask.params["description"] == "shell needs a yes"
        assert ask.params["patternKeys"] == ["plugin_rule:terminal"]
        call = ask.params["toolCall"]
        assert (call["name"], call["args"]) == ("terminal", {"command": "echo hi"})
        assert call["toolCallId"]
        answer = {"runId": run["runId"], "approvalId": ask.params["approvalId"]}
        host.request("approval/respond", {**answer, "decision": decision})
        assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
        [tool] = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert tool["tool_call_id"] == call["toolCallId"]
        outputs.append(json.loads(tool["content"]))
    assert outputs[0]["error"].startswith("BLOCKED: Action denied by user")
    assert outputs[1]["output"] == "hi"
