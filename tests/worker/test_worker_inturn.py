"""inturn: hermes' approval checks on the threads it runs a subagent on within a turn
see the session's key, its sudo prompt the turn's callback and password cache, and the
parent's interrupt reaches the subagent; nothing else changes (the subagent's own key
elsewhere, background delegations, other pool work).

The fakes have the shapes of hermes-agent 0.19's ``tools.delegate_tool``,
``tools.async_delegation``, ``tools.daemon_pool``, ``tools.approval`` and
``tools.terminal_tool`` that ``inturn`` relies on."""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any, NamedTuple

import pytest

from hermes_stdio.worker import inturn

KEY = "hermes-stdio:sess_1"
TURN_SCOPE = f"session:{KEY}"  # where hermes caches the turn's sudo password
# One of the worker's own contextvars, given to install to carry (like secrets.SERVING).
OURS: contextvars.ContextVar[str | None] = contextvars.ContextVar("ours", default=None)
# And one given to carry into background subagents too (like edit_review.REVIEWING).
EVERYWHERE: contextvars.ContextVar[str | None] = contextvars.ContextVar("everywhere", default=None)


def ask_sudo() -> str:  # the session's sudo callback
    return "pw"


CHECKS = ("check_execute_code_guard", "request_elicitation_consent", "request_tool_approval")


class Hermes(NamedTuple):
    delegate_tool: SimpleNamespace
    async_delegation: SimpleNamespace
    daemon_pool: SimpleNamespace
    approval: SimpleNamespace
    terminal_tool: SimpleNamespace


def fake_approval() -> SimpleNamespace:
    """hermes' key, and its approval checks, each answering the key it files under."""
    key: contextvars.ContextVar[str] = contextvars.ContextVar("key", default="")

    def current(default: str = "default") -> str:
        return key.get() or default

    approval = SimpleNamespace(
        get_current_session_key=current,
        set_current_session_key=key.set,
        reset_current_session_key=key.reset,
    )
    for name in CHECKS:
        setattr(approval, name, lambda *a, **k: current())
    return approval


class Child:
    """A subagent: ``run`` answers the key its terminal's approval check files under,
    and notes what every check, hermes' key outside them, and its sudo prompt's
    callback and cache scope say."""

    def __init__(self, hermes: Hermes, parent: Parent | None = None) -> None:
        self.hermes, self.parent = hermes, parent
        self.interrupted: list[str | None] = []
        self.listed = False
        self.checked: list[str] = []
        self.own = ""
        self.sudo: tuple[Any, str] | None = None
        self.ours: str | None = "unset"
        self.everywhere: str | None = "unset"
        self.background: bool | None = None

    def run(self) -> str:
        if self.parent is not None:
            self.listed = any(c is self for c in self.parent._active_children)
        self.checked = [getattr(self.hermes.approval, n)() for n in CHECKS]
        self.own = self.hermes.approval.get_current_session_key()
        self.ours, self.everywhere = OURS.get(), EVERYWHERE.get()
        self.background = inturn.in_background()
        sudo = self.hermes.terminal_tool
        self.sudo = (sudo._get_sudo_password_callback(), sudo._get_sudo_password_cache_scope())
        return str(self.hermes.terminal_tool._check_all_guards("rm -rf x", "local"))

    def interrupt(self, message: str | None = None) -> None:
        self.interrupted.append(message)


class Parent:
    def __init__(self) -> None:
        self._active_children: list[Any] = []
        self._active_children_lock = threading.Lock()
        self._interrupt_requested = False
        self._interrupt_message: str | None = None


def fake_terminal_tool(approval: SimpleNamespace) -> SimpleNamespace:
    """Its approval guard, and its sudo prompt's per-thread callback and cache scope
    (the session context's key, else the callback's id, else the thread)."""
    tls = threading.local()
    session_key: contextvars.ContextVar[str] = contextvars.ContextVar("session", default="")

    def scope() -> str:
        callback = terminal_tool._get_sudo_password_callback()  # looked up, as hermes does
        if session_key.get():
            return f"session:{session_key.get()}"
        return f"callback:{id(callback)}" if callback else f"thread:{threading.get_ident()}"

    terminal_tool = SimpleNamespace(
        _check_all_guards=lambda command, env_type, **k: approval.get_current_session_key(),
        _get_sudo_password_callback=lambda: getattr(tls, "sudo", None),
        _get_sudo_password_cache_scope=scope,
        set_sudo_password_callback=lambda cb: setattr(tls, "sudo", cb),
        session_key=session_key,
    )
    return terminal_tool


def fake_hermes() -> Hermes:
    """A pool class of their own; a delegate_tool that runs each child on a pool of its
    own, a batch on another, and a background delegation through async_delegation,
    which carries the whole context into the batch's thread; each looked up at call
    time, as hermes does."""
    approval = fake_approval()
    terminal_tool = fake_terminal_tool(approval)
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
    return Hermes(delegate_tool, async_delegation, daemon_pool, approval, terminal_tool)


def installed() -> Hermes:
    hermes = fake_hermes()
    assert inturn.install(*hermes, carry=(OURS, EVERYWHERE), background_carry=(EVERYWHERE,))
    return hermes


def in_a_turn(hermes: Hermes, work: Any) -> Any:
    """``work()`` on a thread of its own whose approval key, session context key and
    sudo callback are the session's."""
    box: list[Any] = []

    def turn() -> None:
        hermes.approval.set_current_session_key(KEY)
        hermes.terminal_tool.session_key.set(KEY)
        hermes.terminal_tool.set_sudo_password_callback(ask_sudo)
        OURS.set("the turn's")
        EVERYWHERE.set("the turn's too")
        box.append(work())

    thread = threading.Thread(target=turn)
    thread.start()
    thread.join(10)
    return box[0]


def delegated(hermes: Hermes, children: list[Any], parent: Any = None, **kw: Any) -> Any:
    return in_a_turn(hermes, lambda: hermes.delegate_tool.delegate(children, parent, **kw))


@pytest.mark.parametrize("count", [1, 2])
def test_a_subagent_within_the_turn_is_checked_under_the_sessions_key_alone_or_in_a_batch(
    count: int,
) -> None:
    hermes = installed()
    children = [Child(hermes) for _ in range(count)]
    assert delegated(hermes, children, Parent()) == [KEY] * count
    assert all(c.checked == [KEY] * len(CHECKS) for c in children)  # every approval check


def test_outside_the_approval_checks_a_subagent_keeps_its_own_key() -> None:
    # hermes keys a subagent's working directory and processes by its own task.
    hermes = installed()
    child = Child(hermes)
    delegated(hermes, [child], Parent())
    assert child.own == "default"


@pytest.mark.parametrize("count", [1, 2])
def test_a_subagents_sudo_within_the_turn_asks_through_the_turn_and_caches_as_the_session(
    count: int,
) -> None:
    hermes = installed()
    children = [Child(hermes) for _ in range(count)]
    delegated(hermes, children, Parent())
    assert [c.sudo for c in children] == [(ask_sudo, TURN_SCOPE)] * count


@pytest.mark.parametrize("count", [1, 2])
def test_a_subagent_within_the_turn_has_the_workers_carried_contextvars_as_the_turn_had(
    count: int,
) -> None:
    hermes = installed()
    children = [Child(hermes) for _ in range(count)]
    delegated(hermes, children, Parent())
    assert [c.ours for c in children] == ["the turn's"] * count


def test_a_carried_contextvar_the_turn_gave_no_value_keeps_its_default_in_the_subagent() -> None:
    # Like hermes' runtime_cwd, whose default is a sentinel: None would be a value.
    unset = object()
    hermes_var: contextvars.ContextVar[object] = contextvars.ContextVar("cwd", default=unset)
    hermes = fake_hermes()
    assert inturn.install(*hermes, carry=(OURS, hermes_var))
    seen: list[object] = []

    class Looks(Child):
        def run(self) -> str:
            seen.append(hermes_var.get())
            return super().run()

    delegated(hermes, [Looks(hermes)], Parent())
    assert seen == [unset]


def test_without_the_wrapper_a_subagents_sudo_has_no_callback_and_a_scope_of_its_own() -> None:
    hermes = fake_hermes()
    child = Child(hermes)
    delegated(hermes, [child], Parent())
    assert child.sudo is not None
    callback, scope = child.sudo
    assert callback is None and scope.startswith("thread:")


def test_a_subagent_thread_with_a_sudo_callback_of_its_own_keeps_it() -> None:
    hermes = installed()

    def own() -> str:
        return "own"

    class Prompted(Child):  # hermes' tool threads may be given a callback
        def run(self) -> str:
            self.hermes.terminal_tool.set_sudo_password_callback(own)
            return super().run()

    child = Prompted(hermes)
    delegated(hermes, [child], Parent())
    assert child.sudo == (own, TURN_SCOPE)


def test_without_the_wrapper_a_subagent_files_its_commands_under_default() -> None:
    hermes = fake_hermes()  # what hermes does alone
    assert delegated(hermes, [Child(hermes)], Parent()) == ["default"]


@pytest.mark.parametrize("count", [1, 2])
def test_a_background_delegations_subagents_carry_no_key(count: int) -> None:
    hermes = installed()
    children = [Child(hermes) for _ in range(count)]
    assert delegated(hermes, children, Parent(), background=True) == ["default"] * count
    assert all(c.checked == ["default"] * len(CHECKS) for c in children)
    assert all(c.sudo is not None and c.sudo[0] is None for c in children)
    assert all(c.sudo is not None and c.sudo[1] != TURN_SCOPE for c in children)
    assert [c.ours for c in children] == [None] * count


@pytest.mark.parametrize("background", [False, True])
def test_a_subagent_is_marked_background_or_not_and_has_what_goes_everywhere(
    background: bool,
) -> None:
    hermes = installed()
    children = [Child(hermes) for _ in range(2)]
    delegated(hermes, children, Parent(), background=background)
    assert [c.background for c in children] == [background] * 2
    assert [c.everywhere for c in children] == ["the turn's too"] * 2
    assert inturn.in_background() is False


def test_a_delegation_run_within_the_turn_after_a_refused_dispatch_carries_the_key() -> None:
    hermes = installed()
    refusals = []

    def full_pool() -> list[str]:  # hermes runs the batch itself once its pool is full
        dispatch = hermes.async_delegation.dispatch_async_delegation_batch
        refusals.append(dispatch(lambda: "rejected"))
        return list(hermes.delegate_tool.delegate([Child(hermes)], Parent()))

    assert in_a_turn(hermes, full_pool) == [KEY] and refusals == ["rejected"]


def test_other_work_on_the_pool_and_checks_elsewhere_carry_no_key() -> None:
    hermes = installed()
    guards = hermes.terminal_tool._check_all_guards

    def turn() -> list[str]:
        with hermes.daemon_pool.DaemonThreadPoolExecutor(max_workers=1) as pool:
            subagent = pool.submit(
                hermes.delegate_tool._run_single_child, 0, "goal", Child(hermes), Parent()
            )
            # the same pool thread next: it has forgotten what it carried for the subagent
            later = [pool.submit(guards, "ls", "local"), pool.submit(OURS.get)]
            return [subagent.result(10), *(f.result(10) for f in later)]

    assert in_a_turn(hermes, turn) == [KEY, "default", None]
    assert guards("ls", "local") == "default"  # no turn, no subagent: as hermes has it
    assert in_a_turn(hermes, lambda: guards("ls", "local")) == KEY  # the turn's own
    terminal = hermes.terminal_tool
    sudo = (terminal._get_sudo_password_callback, terminal._get_sudo_password_cache_scope)
    assert [f() for f in sudo] == [None, f"thread:{threading.get_ident()}"]
    assert in_a_turn(hermes, lambda: [f() for f in sudo]) == [ask_sudo, TURN_SCOPE]


def test_the_parents_interrupt_reaches_a_subagent_hermes_left_off_its_list() -> None:
    hermes = installed()
    parent = Parent()
    child = Child(hermes, parent)
    delegated(hermes, [child], parent)
    assert child.listed and parent._active_children == []
    assert child.interrupted == []


def test_a_subagent_starting_under_an_interrupted_parent_is_interrupted_at_once() -> None:
    hermes = installed()
    parent = Parent()
    parent._interrupt_requested, parent._interrupt_message = True, "stop"
    child = Child(hermes, parent)
    delegated(hermes, [child], parent)
    assert child.interrupted == ["stop"]


def test_a_subagent_already_listed_is_left_to_hermes() -> None:
    hermes = installed()
    parent = Parent()
    child = Child(hermes, parent)
    parent._active_children.append(child)
    delegated(hermes, [child], parent)
    assert child.listed and parent._active_children == [child]


@pytest.mark.parametrize("where", ["in the background", "with no key"])
def test_a_subagent_outside_a_turn_stays_off_its_parents_list(where: str) -> None:
    hermes = installed()
    parent = Parent()
    child = Child(hermes, parent)
    if where == "with no key":
        assert hermes.delegate_tool.delegate([child], parent) == ["default"]
    else:
        delegated(hermes, [child], parent, background=True)
    assert not child.listed


def wrapped_functions(hermes: Hermes) -> list[Any]:
    return [
        hermes.delegate_tool._run_single_child,
        hermes.daemon_pool.DaemonThreadPoolExecutor.submit,
        hermes.async_delegation.dispatch_async_delegation_batch,
        hermes.terminal_tool._check_all_guards,
        hermes.terminal_tool._get_sudo_password_callback,
        hermes.terminal_tool._get_sudo_password_cache_scope,
        *(getattr(hermes.approval, n) for n in CHECKS),
    ]


def test_installing_twice_wraps_once_and_keeps_other_wrappers_marks() -> None:
    hermes = fake_hermes()
    hermes.async_delegation.dispatch_async_delegation_batch.hermes_stdio_watch = True  # watches
    assert inturn.install(*hermes)
    wrapped = wrapped_functions(hermes)
    assert getattr(wrapped[2], "hermes_stdio_watch", False)
    assert inturn.install(*hermes)
    assert wrapped_functions(hermes) == wrapped


@pytest.mark.parametrize(
    "change",
    [
        "no runner",
        "runner without parent_agent",
        "no key setter",
        "no batch dispatch",
        "no guard",
        "no sudo callback getter",
        "no sudo cache scope",
    ],
)
def test_other_hermes_internals_are_refused_and_left_as_they_were(change: str) -> None:
    hermes = fake_hermes()
    if change == "no runner":
        del hermes.delegate_tool._run_single_child
    elif change == "runner without parent_agent":
        hermes.delegate_tool._run_single_child = lambda task_index, goal, child=None: None
    elif change == "no key setter":
        del hermes.approval.set_current_session_key
    elif change == "no batch dispatch":
        del hermes.async_delegation.dispatch_async_delegation_batch
    elif change == "no guard":
        del hermes.terminal_tool._check_all_guards
    elif change == "no sudo callback getter":
        del hermes.terminal_tool._get_sudo_password_callback
    else:
        del hermes.terminal_tool._get_sudo_password_cache_scope
    before = [getattr(o, n, None) for o, n in _places(hermes)]
    assert not inturn.install(*hermes)
    assert [getattr(o, n, None) for o, n in _places(hermes)] == before


def _places(hermes: Hermes) -> list[tuple[Any, str]]:
    return [
        (hermes.delegate_tool, "_run_single_child"),
        (hermes.daemon_pool.DaemonThreadPoolExecutor, "submit"),
        (hermes.async_delegation, "dispatch_async_delegation"),
        (hermes.async_delegation, "dispatch_async_delegation_batch"),
        (hermes.terminal_tool, "_check_all_guards"),
        (hermes.terminal_tool, "_get_sudo_password_callback"),
        (hermes.terminal_tool, "_get_sudo_password_cache_scope"),
        *((hermes.approval, n) for n in CHECKS),
    ]
