"""A cron job run now for a host (``cron/run``): the agents hermes runs for it, in reach.

hermes' ``cronjob`` tool (action ``run``) builds the job's agent itself and
runs its conversation on a thread of its own, with a copy of the caller's
context; it hands back only whether the job succeeded. So that
``run/interrupt`` can stop the job and ``run/completed`` can carry what it
answered:

Contract:
- ``install(agent_class)`` wraps hermes' ``AIAgent.run_conversation`` once
  (True; False, changing nothing, when it has none). Inside ``watching(watch)``
  each agent that starts a conversation in that context (the job's, then any
  subagent it starts on a copy of it) is handed to ``watch.started`` before it
  runs and to ``watch.finished`` with its result after; everywhere else the
  wrapper only calls through.
- ``Watch.attach(callbacks)``: the first agent gets those of the callbacks
  (``callbacks.agent_callbacks``) hermes gave it none of, before it runs, so
  its text and tool activity reach the run; ``Watch.first`` is that agent.
  ``Watch.attach_thread(scope)``: its conversation runs within ``scope()`` on
  its own thread.
- ``Watch.interrupt(message)`` interrupts every agent started so far, and each
  one that starts later before it runs (hermes keeps an interrupt made before
  a conversation for it). ``Watch.outcome`` is the first agent's (the job's):
  a ``TurnOutcome`` with its final response, messages, model calls and usage;
  None until it has finished. ``Watch(platform)`` watches only agents of that
  hermes platform.
- ``TurnWatches``: for a session's turn, ``turn(agent)`` watches the cron
  jobs its agent's ``cronjob`` tool runs now (agents of platform ``cron``;
  not the turn's own agent, nor its subagents, which hermes interrupts with
  it); ``interrupt(agent, message)`` interrupts them with the turn. Without
  it a turn interrupted while a job it runs waits for its model would wait
  for the whole job.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..transport.log import log
from . import usage
from .contract import TurnOutcome

_MARK = "_hermes_stdio_cron_watch"
_WATCH: contextvars.ContextVar[Watch | None] = contextvars.ContextVar("cron_watch", default=None)


class Watch:
    def __init__(self, platform: str | None = None) -> None:
        self._platform = platform
        self._lock = threading.Lock()
        self._agents: list[Any] = []
        self._before: dict[int, usage.Counters | None] = {}
        self._stop: str | None = None
        self._stopped = False
        self._callbacks: dict[str, Callable[..., None]] = {}
        self._on_thread: Callable[[], contextlib.AbstractContextManager[None]] | None = None
        self.outcome: TurnOutcome | None = None

    def attach(self, callbacks: dict[str, Callable[..., None]]) -> None:
        """Callbacks (``AIAgent`` attribute names) the first agent gets where hermes
        gave it none; its subagents report through them, as a turn's do."""
        self._callbacks = dict(callbacks)

    def attach_thread(self, scope: Callable[[], contextlib.AbstractContextManager[None]]) -> None:
        """``scope()`` is entered on the thread the first agent's conversation runs on,
        around it (what hermes reads per thread, such as its sudo prompt)."""
        self._on_thread = scope

    def around(self, agent: Any) -> contextlib.AbstractContextManager[None]:
        """What the wrapper enters around ``agent``'s conversation."""
        if self._on_thread is None or self.first is not agent:
            return contextlib.nullcontext()
        return self._on_thread()

    @property
    def first(self) -> Any:
        """The first agent started (the job's); None before."""
        with self._lock:
            return self._agents[0] if self._agents else None

    def started(self, agent: Any) -> None:
        if self._platform is not None and getattr(agent, "platform", None) != self._platform:
            return
        with self._lock:
            first = not self._agents
            self._agents.append(agent)
            if first:
                self._before[id(agent)] = usage.counters(agent)
            stopped, message = self._stopped, self._stop
        if first:
            for name, callback in self._callbacks.items():
                if getattr(agent, name, None) is None:
                    setattr(agent, name, callback)
        if stopped:
            agent.interrupt(message)

    def finished(self, agent: Any, result: Any) -> None:
        with self._lock:
            if not self._agents or self._agents[0] is not agent or self.outcome is not None:
                return
            before = self._before.pop(id(agent), None)
        self.outcome = TurnOutcome.of(result, [], usage.turn_usage(agent, before))

    def interrupt(self, message: str | None) -> None:
        with self._lock:
            self._stopped, self._stop = True, message
            agents = list(self._agents)
        for agent in agents:
            agent.interrupt(message)


class TurnWatches:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_agent: dict[int, Watch] = {}

    @contextlib.contextmanager
    def turn(self, agent: Any) -> Iterator[None]:
        watch = Watch(platform="cron")
        with self._lock:
            self._by_agent[id(agent)] = watch
        try:
            with watching(watch):
                yield
        finally:
            with self._lock:
                self._by_agent.pop(id(agent), None)

    def interrupt(self, agent: Any, message: str | None) -> None:
        with self._lock:
            watch = self._by_agent.get(id(agent))
        if watch is not None:
            watch.interrupt(message)


@contextlib.contextmanager
def watching(watch: Watch) -> Iterator[None]:
    token = _WATCH.set(watch)
    try:
        yield
    finally:
        _WATCH.reset(token)


def install(agent_class: Any) -> bool:
    converse: Any = getattr(agent_class, "run_conversation", None)
    if not callable(converse):
        log("worker: hermes' AIAgent changed: a cron/run cannot be interrupted")
        return False
    if getattr(converse, _MARK, False):
        return True

    @functools.wraps(converse)
    def run_conversation(self: Any, *args: Any, **kwargs: Any) -> Any:
        watch = _WATCH.get()
        if watch is None:
            return converse(self, *args, **kwargs)
        watch.started(self)
        with watch.around(self):
            result = converse(self, *args, **kwargs)
        watch.finished(self, result)
        return result

    setattr(run_conversation, _MARK, True)
    agent_class.run_conversation = run_conversation
    return True
