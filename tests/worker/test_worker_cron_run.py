"""cron_run with fake agent classes: inside watching(), the agents that start a
conversation (on the context or a copy of it, as hermes' scheduler runs a job's
agent) are in reach of an interrupt and the first one's turn is kept; elsewhere
the wrapper only calls through."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from typing import Any

from hermes_stdio.worker import cron_run
from hermes_stdio.worker.cron_run import TurnWatches, Watch, watching


class Agent:
    def __init__(self, answer: str = "done") -> None:
        self.answer = answer
        self.interrupts: list[str | None] = []

    def run_conversation(self, message: str) -> dict[str, Any]:
        return {"final_response": f"{self.answer}: {message}", "messages": [{}, {}], "api_calls": 1}

    def interrupt(self, message: str | None = None) -> None:
        self.interrupts.append(message)


def test_the_wrapper_calls_through_outside_a_watch_and_installs_once() -> None:
    class Mine(Agent):
        pass

    assert cron_run.install(Mine) and cron_run.install(Mine)
    wrapped = Mine.run_conversation
    assert cron_run.install(Mine) and Mine.run_conversation is wrapped
    assert Mine().run_conversation("hi")["final_response"] == "done: hi"
    assert not cron_run.install(object)


def test_the_first_agent_on_a_copied_context_is_the_jobs_and_its_turn_is_kept() -> None:
    class Mine(Agent):
        pass

    cron_run.install(Mine)
    watch = Watch()
    job, child = Mine("job"), Mine("child")
    with watching(watch):
        context = contextvars.copy_context()  # as hermes' scheduler hands its pool thread
        thread = threading.Thread(target=context.run, args=(job.run_conversation, "go"))
        thread.start()
        thread.join(10)
        child.run_conversation("sub")
    assert watch.outcome is not None
    assert (watch.outcome.final_response, len(watch.outcome.messages)) == ("job: go", 2)
    assert watch.outcome.api_calls == 1
    watch.interrupt("stop")
    assert job.interrupts == ["stop"] and child.interrupts == ["stop"]
    Mine("after").run_conversation("x")  # outside the watch: not reached
    assert watch.outcome.final_response == "job: go"


def test_an_agent_that_starts_after_the_interrupt_is_interrupted_before_it_runs() -> None:
    seen: list[list[str | None]] = []

    class Mine(Agent):
        def run_conversation(self, message: str) -> dict[str, Any]:
            seen.append(list(self.interrupts))
            return super().run_conversation(message)

    cron_run.install(Mine)
    watch = Watch()
    watch.interrupt(None)
    with watching(watch):
        Mine().run_conversation("late")
    assert seen == [[None]]


def test_a_turns_watch_reaches_the_cron_jobs_its_agent_runs_and_nothing_else() -> None:
    class Mine(Agent):
        def __init__(self, platform: str) -> None:
            super().__init__(platform)
            self.platform = platform

    cron_run.install(Mine)
    turns = TurnWatches()
    own, job, other = Mine("hermes-stdio"), Mine("cron"), Mine("hermes-stdio")
    with turns.turn(own):
        own.run_conversation("turn")  # the turn's own agent: the adapter interrupts it
        job.run_conversation("job")  # what its cronjob tool runs now
        turns.interrupt(other, "not this turn")
        assert job.interrupts == []
        turns.interrupt(own, "stop")
    assert (own.interrupts, job.interrupts) == ([], ["stop"])
    turns.interrupt(own, "after the turn")  # nothing watched any more
    assert job.interrupts == ["stop"]


def test_only_the_first_agent_gets_the_attached_callbacks_and_only_where_it_has_none() -> None:
    class Mine(Agent):
        def __init__(self, answer: str = "done") -> None:
            super().__init__(answer)
            self.stream_delta_callback: Any = None
            self.step_callback: Any = "hermes' own"

    cron_run.install(Mine)
    watch = Watch()
    assert watch.first is None

    def delta(text: str) -> None:
        pass

    def step(*_: Any) -> None:
        pass

    watch.attach({"stream_delta_callback": delta, "step_callback": step})
    job, child = Mine("job"), Mine("child")
    with watching(watch):
        job.run_conversation("run")
        child.run_conversation("help")
    assert watch.first is job
    assert job.stream_delta_callback is delta and job.step_callback == "hermes' own"
    assert child.stream_delta_callback is None  # a subagent reports through its parent


def test_only_the_first_agents_conversation_runs_within_the_thread_scope_on_its_thread() -> None:
    entered: list[tuple[str, int]] = []

    class Mine(Agent):
        def run_conversation(self, message: str) -> dict[str, Any]:
            entered.append((f"ran {self.answer}", threading.get_ident()))
            return super().run_conversation(message)

    @contextlib.contextmanager
    def scope() -> Iterator[None]:
        entered.append(("in", threading.get_ident()))
        yield
        entered.append(("out", threading.get_ident()))

    cron_run.install(Mine)
    watch = Watch()
    watch.attach_thread(scope)
    job, child = Mine("job"), Mine("child")
    with watching(watch):
        ctx = contextvars.copy_context()  # as hermes runs the job: a copy, on a thread

        def run() -> None:
            job.run_conversation("run")
            child.run_conversation("help")

        thread = threading.Thread(target=lambda: ctx.run(run))
        thread.start()
        thread.join(10)
    ident = thread.ident
    assert entered == [("in", ident), ("ran job", ident), ("out", ident), ("ran child", ident)]
