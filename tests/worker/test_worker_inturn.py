"""inturn: the threads hermes runs a subagent on within a turn carry the session's
approval key, and the parent's interrupt reaches the subagent; nothing else changes.

The fakes have the shapes of hermes-agent 0.19's ``tools.delegate_tool``,
``tools.async_delegation``, ``tools.daemon_pool`` and ``tools.approval`` that
``inturn`` relies on."""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import inturn

KEY = "hermes-stdio:sess_1"


def fake_approval() -> SimpleNamespace:
    key: contextvars.ContextVar[str] = contextvars.ContextVar("key", default="")
    return SimpleNamespace(
        get_current_session_key=lambda default="default": key.get() or default,
        set_current_session_key=key.set,
        reset_current_session_key=key.reset,
    )


class Child:
    def __init__(self, approval: SimpleNamespace, parent: Parent | None = None) -> None:
        self.approval, self.parent = approval, parent
        self.interrupted: list[str | None] = []
        self.listed = False

    def run(self) -> str:
        if self.parent is not None:
            self.listed = any(c is self for c in self.parent._active_children)
        return str(self.approval.get_current_session_key())

    def interrupt(self, message: str | None = None) -> None:
        self.interrupted.append(message)


class Parent:
    def __init__(self) -> None:
        self._active_children: list[Any] = []
        self._active_children_lock = threading.Lock()
        self._interrupt_requested = False
        self._interrupt_message: str | None = None


Hermes = tuple[SimpleNamespace, SimpleNamespace, SimpleNamespace, SimpleNamespace]


def fake_hermes() -> Hermes:
    """(delegate_tool, async_delegation, daemon_pool, approval): a pool class of their
    own; a delegate_tool that runs each child on a pool of its own, a batch on another,
    and a background delegation through async_delegation, which carries the whole
    context into the batch's thread; each looked up at call time, as hermes does."""
    approval = fake_approval()
    daemon_pool = SimpleNamespace(DaemonThreadPoolExecutor=type("Pool", (ThreadPoolExecutor,), {}))

    def dispatch_batch(runner: Any) -> Any:
        with daemon_pool.DaemonThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(contextvars.copy_context().run, runner).result(10)

    async_delegation = SimpleNamespace(
        dispatch_async_delegation=dispatch_batch, dispatch_async_delegation_batch=dispatch_batch
    )

    def run_single_child(
        task_index: int, goal: str, child: Any = None, parent_agent: Any = None, **_: Any
    ) -> str:
        with daemon_pool.DaemonThreadPoolExecutor(max_workers=1) as pool:
            return str(pool.submit(child.run).result(10))

    def delegate(children: list[Any], parent: Any, background: bool = False) -> list[str]:
        if background:
            dispatch = async_delegation.dispatch_async_delegation_batch
            return list(dispatch(lambda: delegate(children, parent)))
        if len(children) == 1:
            return [delegate_tool._run_single_child(0, "goal", children[0], parent)]
        with daemon_pool.DaemonThreadPoolExecutor(max_workers=len(children)) as pool:
            futures = [
                pool.submit(
                    delegate_tool._run_single_child,
                    task_index=i,
                    goal="goal",
                    child=c,
                    parent_agent=parent,
                )
                for i, c in enumerate(children)
            ]
            return [str(f.result(10)) for f in futures]

    delegate_tool = SimpleNamespace(_run_single_child=run_single_child, delegate=delegate)
    return delegate_tool, async_delegation, daemon_pool, approval


def installed() -> Hermes:
    hermes = fake_hermes()
    assert inturn.install(*hermes)
    return hermes


def in_a_turn(approval: SimpleNamespace, work: Any) -> Any:
    """``work()`` on a thread of its own whose approval key is the session's."""
    box: list[Any] = []

    def turn() -> None:
        approval.set_current_session_key(KEY)
        box.append(work())

    thread = threading.Thread(target=turn)
    thread.start()
    thread.join(10)
    return box[0]


@pytest.mark.parametrize("count", [1, 2])
def test_a_subagent_run_within_the_turn_sees_the_sessions_key_alone_or_in_a_batch(
    count: int,
) -> None:
    delegate_tool, _, _, approval = installed()
    children = [Child(approval) for _ in range(count)]
    assert in_a_turn(approval, lambda: delegate_tool.delegate(children, Parent())) == [KEY] * count


def test_without_the_wrapper_a_subagent_files_its_commands_under_default() -> None:
    delegate_tool, _, _, approval = fake_hermes()  # what hermes does alone
    assert in_a_turn(approval, lambda: delegate_tool.delegate([Child(approval)], Parent())) == [
        "default"
    ]


@pytest.mark.parametrize("count", [1, 2])
def test_a_background_delegations_subagents_carry_no_key(count: int) -> None:
    delegate_tool, _, _, approval = installed()
    children = [Child(approval) for _ in range(count)]
    delegated = in_a_turn(approval, lambda: delegate_tool.delegate(children, Parent(), True))
    assert delegated == ["default"] * count


def test_a_delegation_run_within_the_turn_after_a_refused_dispatch_carries_the_key() -> None:
    delegate_tool, async_delegation, _, approval = installed()
    refusals = []

    def full_pool() -> list[str]:  # hermes runs the batch itself once its pool is full
        refusals.append(async_delegation.dispatch_async_delegation_batch(lambda: "rejected"))
        return list(delegate_tool.delegate([Child(approval)], Parent()))

    assert in_a_turn(approval, full_pool) == [KEY] and refusals == ["rejected"]


def test_other_work_on_the_pool_carries_no_key_and_a_reused_thread_forgets_it() -> None:
    delegate_tool, _, daemon_pool, approval = installed()
    key = approval.get_current_session_key

    def turn() -> list[str]:
        with daemon_pool.DaemonThreadPoolExecutor(max_workers=1) as pool:
            subagent = pool.submit(
                delegate_tool._run_single_child, 0, "goal", Child(approval), Parent()
            )
            return [subagent.result(10), pool.submit(key).result(10)]

    assert in_a_turn(approval, turn) == [KEY, "default"]


def test_the_parents_interrupt_reaches_a_subagent_hermes_left_off_its_list() -> None:
    delegate_tool, _, _, approval = installed()
    parent = Parent()
    child = Child(approval, parent)
    in_a_turn(approval, lambda: delegate_tool.delegate([child], parent))
    assert child.listed and parent._active_children == []
    assert child.interrupted == []


def test_a_subagent_starting_under_an_interrupted_parent_is_interrupted_at_once() -> None:
    delegate_tool, _, _, approval = installed()
    parent = Parent()
    parent._interrupt_requested, parent._interrupt_message = True, "stop"
    child = Child(approval, parent)
    in_a_turn(approval, lambda: delegate_tool.delegate([child], parent))
    assert child.interrupted == ["stop"]


def test_a_subagent_already_listed_is_left_to_hermes() -> None:
    delegate_tool, _, _, approval = installed()
    parent = Parent()
    child = Child(approval, parent)
    parent._active_children.append(child)
    in_a_turn(approval, lambda: delegate_tool.delegate([child], parent))
    assert child.listed and parent._active_children == [child]


@pytest.mark.parametrize("where", ["in the background", "with no key"])
def test_a_subagent_outside_a_turn_stays_off_its_parents_list(where: str) -> None:
    delegate_tool, _, _, approval = installed()
    parent = Parent()
    child = Child(approval, parent)
    if where == "with no key":
        assert delegate_tool.delegate([child], parent) == ["default"]
    else:
        in_a_turn(approval, lambda: delegate_tool.delegate([child], parent, True))
    assert not child.listed


def test_installing_twice_wraps_once_and_keeps_other_wrappers_marks() -> None:
    delegate_tool, async_delegation, daemon_pool, approval = fake_hermes()
    async_delegation.dispatch_async_delegation_batch.hermes_stdio_watch = True  # ``watches``
    assert inturn.install(delegate_tool, async_delegation, daemon_pool, approval)
    wrapped = (
        delegate_tool._run_single_child,
        daemon_pool.DaemonThreadPoolExecutor.submit,
        async_delegation.dispatch_async_delegation_batch,
    )
    assert getattr(wrapped[2], "hermes_stdio_watch", False)
    assert inturn.install(delegate_tool, async_delegation, daemon_pool, approval)
    assert (
        delegate_tool._run_single_child,
        daemon_pool.DaemonThreadPoolExecutor.submit,
        async_delegation.dispatch_async_delegation_batch,
    ) == wrapped


@pytest.mark.parametrize(
    "change", ["no runner", "runner without parent_agent", "no key setter", "no batch dispatch"]
)
def test_other_hermes_internals_are_refused_and_left_as_they_were(change: str) -> None:
    delegate_tool, async_delegation, daemon_pool, approval = fake_hermes()
    if change == "no runner":
        del delegate_tool._run_single_child
    elif change == "runner without parent_agent":
        delegate_tool._run_single_child = lambda task_index, goal, child=None: None
    elif change == "no key setter":
        del approval.set_current_session_key
    else:
        del async_delegation.dispatch_async_delegation_batch
    before = (
        getattr(delegate_tool, "_run_single_child", None),
        daemon_pool.DaemonThreadPoolExecutor.submit,
        getattr(async_delegation, "dispatch_async_delegation", None),
    )
    assert not inturn.install(delegate_tool, async_delegation, daemon_pool, approval)
    assert before == (
        getattr(delegate_tool, "_run_single_child", None),
        daemon_pool.DaemonThreadPoolExecutor.submit,
        getattr(async_delegation, "dispatch_async_delegation", None),
    )
