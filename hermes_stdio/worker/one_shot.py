"""``model/oneShot``: one request to a model outside any conversation, as hermes' TUI
makes one (its ``llm.oneshot``) for small chores such as a commit message for a diff.

Contract:
- ``OneShotMethods`` is a mixin of ``WorkerService`` (which provides
  ``adapter``, ``answer_off_reader`` and ``_held_agent``): ``model/oneShot``
  is checked on the reader, then asked off it (``adapter.one_shot``, with the
  session's agent when this worker holds it), as a slow job; the synthetic
  agent is ``agent_unavailable``.
- ``checked(p)`` refuses, as ``invalid_params`` naming the field, a request
  with nothing to ask (no ``commitMessage``, and blank ``instructions`` and
  ``input``), one with ``commitMessage`` and either of those, a text over
  ``MAX_ONE_SHOT_TEXT`` characters and ``temperature`` outside 0 to 2. (No
  output cap is taken: hermes sends none to most providers, on purpose.)
- ``ask(run_oneshot, agent, p)`` (hermes' ``agent.oneshot.run_oneshot``; the
  session's agent or None) returns the model's text. hermes' ``commit_message``
  prompt for ``commitMessage``, else ``instructions`` and ``input``. With an
  agent, its provider, model and credentials (as hermes' TUI passes a live
  session's); else hermes' model for auxiliary tasks (``title_generation``).
  Nothing touches a session's history. Whatever hermes raises (no provider
  set up, the provider's error, its 60 s timeout) is ``model_call_failed``
  with hermes' reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ..protocol import providers as pv
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter

TASK = "title_generation"  # hermes' default one-shot backend: a cheap, fast model
_RUNTIME = ("provider", "model", "base_url", "api_key", "api_mode", "auth_mode")


class OneShotMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    _held_agent: Callable[[str | None], Any]

    def _h_model_oneShot(self, req: Request, p: pv.ModelOneShotParams) -> object:
        checked(p)
        agent = self._held_agent(p.session_id)

        def answer() -> pv.ModelOneShotResult:
            return pv.ModelOneShotResult(self.adapter.one_shot(agent, p))

        return self.answer_off_reader(req, "one-shot", answer, slow=True)


def checked(p: pv.ModelOneShotParams) -> None:
    texts = {"instructions": p.instructions, "input": p.input}
    if p.commit_message is not None:
        c = p.commit_message
        texts = {
            "commitMessage.diff": c.diff,
            "commitMessage.recentCommits": c.recent_commits,
            "commitMessage.avoid": c.avoid,
        }
        given = [name for name in ("instructions", "input") if (getattr(p, name) or "").strip()]
        if given:
            _refuse("commitMessage", f"commitMessage cannot go with {given[0]}")
    elif not any((text or "").strip() for text in texts.values()):
        _refuse("input", "nothing to ask: give input, instructions or commitMessage")
    for name, text in texts.items():
        if text is not None and len(text) > pv.MAX_ONE_SHOT_TEXT:
            _refuse(name, f"{name} is longer than {pv.MAX_ONE_SHOT_TEXT} characters")
    if p.temperature is not None and not 0 <= p.temperature <= 2:
        _refuse("temperature", "temperature must be 0 to 2")


def _refuse(field: str, message: str) -> NoReturn:
    raise RpcError(ErrorType.INVALID_PARAMS, message, field=f"params.{field}")


def ask(run_oneshot: Callable[..., Any], agent: Any, p: pv.ModelOneShotParams) -> str:
    prompt: dict[str, Any] = {"instructions": p.instructions or "", "user_input": p.input or ""}
    if p.commit_message is not None:
        c = p.commit_message
        variables = {"diff": c.diff, "recent_commits": c.recent_commits, "avoid": c.avoid}
        prompt = {"template": "commit_message", "variables": variables}
    try:
        text = run_oneshot(
            **prompt,
            task=TASK,
            temperature=0.3 if p.temperature is None else p.temperature,
            main_runtime=_runtime(agent),
        )
    except Exception as exc:
        raise RpcError(ErrorType.MODEL_CALL_FAILED, f"the model gave no answer: {exc}") from exc
    return str(text or "")


def _runtime(agent: Any) -> dict[str, Any] | None:
    """The agent's provider, model and credentials, as hermes' TUI hands a live session's."""
    if agent is None:
        return None
    runtime: dict[str, Any] = {}
    for field in _RUNTIME:
        value = getattr(agent, field, None)
        if isinstance(value, str) and value.strip():
            runtime[field] = value.strip()
        elif field == "api_key" and callable(value):  # a credential pool's getter
            runtime[field] = value
    return runtime or None
