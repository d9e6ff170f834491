"""Subagents hermes runs within a session's turn are asked about, and stopped, as
the turn is.

Contract: ``install(delegate_tool, async_delegation, daemon_pool, approval,
terminal_tool, carry, background_carry)`` takes those hermes-agent modules
(``tools.*``, passed in by the adapter), and ``carry``, contextvars that a
subagent within the turn has as its turn had them (the session a skill's
secret is asked for: ``secrets.SERVING``; hermes' working directory of the
turn, which its subagent's system prompt names); one the turn has no value of
keeps its default.

- Within a turn, the threads ``delegate_tool`` runs a subagent on carry the
  session's approval key from the thread that started them: a batch's pool
  running ``_run_single_child``, and the pool ``_run_single_child`` starts
  for the child's conversation. hermes' approval checks there
  (``terminal_tool._check_all_guards``, and ``approval``'s
  ``check_execute_code_guard``, ``request_elicitation_consent`` and
  ``request_tool_approval``) run under that key. So a command such a
  subagent flags is filed under the session's key, and the host is asked in
  the turn's run, as for the turn's own tools.
- Those threads also carry the turn's sudo password callback and the scope
  under which hermes caches the password (``terminal_tool``'s
  ``_get_sudo_password_callback`` and ``_get_sudo_password_cache_scope``
  answer them there, unless the thread has a callback of its own). So a
  subagent's ``sudo`` asks the host in the turn's run, and the password is
  the session's: given once, it serves the session's own commands and its
  subagents', and no other session's. They carry ``carry``'s values too.
- Only those checks see the key. Elsewhere the subagent keeps its own, as
  hermes intends: its terminal's working-directory record and its processes
  are its task's, so a ``cd`` in the subagent does not move the session's
  terminal. Neither hermes' session context nor its approval callback is
  carried.
- While such a subagent runs, it is on its parent agent's list of children
  to interrupt. hermes takes a background delegation's subagents off that
  list before it dispatches them, and leaves them off when its background
  pool is full and it runs them within the turn instead. Without this, an
  interrupted run would go on waiting for them (for one waiting on the host:
  until hermes' approval timeout). A subagent that starts under an
  interrupted parent is interrupted at once.
- A background delegation is left as hermes makes it: its subagents, and
  theirs, ask nobody. hermes' async pool carries the whole context into the
  thread that runs the batch, so what ``async_delegation`` dispatches is
  marked (a contextvar that goes with it), and nothing under that mark is
  carried or listed, but for the mark itself and ``background_carry``'s
  values (contextvars of this worker's own, such as the session whose edits
  are reviewed: ``edit_review.REVIEWING``), which go with every thread its
  subagents run on. ``in_background()`` says whether the mark is on the
  calling thread. A thread with no key is not in a turn.
- Every other use of the pool class and of those checks is left as it was.
- Installing again changes nothing. ``install`` returns False, logs it and
  changes nothing when hermes' internals are not the ones this was written
  against. Such subagents are then asked about by nobody, and what they flag
  never runs.

Why: hermes reads the key from a contextvar, and each of those pools starts
its threads with an empty context. Without the key, hermes files the command
under ``default``, where no host is listening: it is held as pending, and
never runs. Without the sudo callback (per-thread in hermes), sudo gets no
password and fails. Carrying the callback alone is not enough: hermes would
cache the password under the callback object's ``id()``, which a later
session's callback could be given.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..transport.log import log

_MARK = "_hermes_stdio_carries_key"
_DISPATCHES = ("dispatch_async_delegation", "dispatch_async_delegation_batch")
_SUDO = ("_get_sudo_password_callback", "_get_sudo_password_cache_scope")  # terminal_tool's
_CHECKS = (
    "check_execute_code_guard",
    "request_elicitation_consent",
    "request_tool_approval",
)  # approval's; with terminal_tool's _check_all_guards
_inside = threading.local()  # depth of _run_single_child calls on this thread
_background: contextvars.ContextVar[bool] = contextvars.ContextVar("background", default=False)


@dataclass(frozen=True)
class _Turn:
    """What a subagent's threads carry of the turn that started it."""

    key: str  # hermes' approval session key
    sudo: Callable[[], str] | None  # hermes' sudo password callback
    sudo_scope: str  # where hermes caches the sudo password
    ours: tuple[tuple[contextvars.ContextVar[Any], Any], ...] = ()  # carry's, with values


_route: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar("route", default=None)
_NONE = object()  # a variable with no value in a context


def install(
    delegate_tool: Any,
    async_delegation: Any,
    daemon_pool: Any,
    approval: Any,
    terminal_tool: Any,
    carry: Sequence[contextvars.ContextVar[Any]] = (),
    background_carry: Sequence[contextvars.ContextVar[Any]] = (),
) -> bool:
    modules = (delegate_tool, async_delegation, daemon_pool, approval, terminal_tool)
    if _install(*modules, carry, background_carry):
        return True
    log("worker: hermes' delegation internals changed: subagents run within a turn ask nobody")
    return False


def _install(
    delegate_tool: Any,
    async_delegation: Any,
    daemon_pool: Any,
    approval: Any,
    terminal_tool: Any,
    carry: Sequence[contextvars.ContextVar[Any]],
    background_carry: Sequence[contextvars.ContextVar[Any]],
) -> bool:
    dispatches: dict[str, Any] = {n: getattr(async_delegation, n, None) for n in _DISPATCHES}
    places = [(approval, n) for n in _CHECKS] + [(terminal_tool, "_check_all_guards")]
    checks: list[tuple[Any, str, Any]] = [(o, n, getattr(o, n, None)) for o, n in places]
    pool: Any = getattr(daemon_pool, "DaemonThreadPoolExecutor", None)
    run_child: Any = getattr(delegate_tool, "_run_single_child", None)
    get_key: Any = getattr(approval, "get_current_session_key", None)
    set_key: Any = getattr(approval, "set_current_session_key", None)
    reset_key: Any = getattr(approval, "reset_current_session_key", None)
    get_sudo: Any = getattr(terminal_tool, _SUDO[0], None)
    sudo_scope: Any = getattr(terminal_tool, _SUDO[1], None)
    if not inspect.isclass(pool) or not callable(getattr(pool, "submit", None)):
        return False
    wrapped = (*dispatches.values(), *(check for _, _, check in checks))
    needed = (run_child, get_key, set_key, reset_key, get_sudo, sudo_scope, *wrapped)
    if not all(callable(f) for f in needed):
        return False
    if getattr(run_child, _MARK, False):
        return True

    try:
        signature = inspect.signature(run_child)
    except (TypeError, ValueError):
        return False
    if not {"child", "parent_agent"} <= signature.parameters.keys():
        return False

    @functools.wraps(run_child)
    def run_single_child(*args: Any, **kwargs: Any) -> Any:
        depth: int = getattr(_inside, "depth", 0)
        _inside.depth = depth + 1
        bound = signature.bind_partial(*args, **kwargs).arguments
        parent, child = bound.get("parent_agent"), bound.get("child")
        attached = _within_a_turn(get_key) and _attach(parent, child)
        try:
            return run_child(*args, **kwargs)
        finally:
            _inside.depth = depth
            if attached:
                _detach(parent, child)

    def asked_as_the_turn(check: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(check)
        def run(*args: Any, **kwargs: Any) -> Any:
            turn = _route.get()
            if turn is None or get_key(default=""):  # not a subagent's, or hermes has a key
                return check(*args, **kwargs)
            token = set_key(turn.key)
            try:
                return check(*args, **kwargs)
            finally:
                reset_key(token)

        return run

    def sudo_callback() -> Any:
        own, turn = get_sudo(), _route.get()
        return turn.sudo if own is None and turn is not None else own

    def sudo_cache_scope() -> Any:
        turn = _route.get()
        return turn.sudo_scope if turn is not None else sudo_scope()

    submit: Callable[..., Any] = getattr(pool, "submit")  # noqa: B009 (mypy sees type[object])

    def carrying_submit(self: Any, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        subagents = fn is run_single_child or getattr(_inside, "depth", 0) > 0
        if subagents and _within_a_turn(get_key):
            # hermes' own answers on the turn's thread; a subagent's thread passes its on
            turn = _route.get() or _Turn(
                str(get_key(default="")),
                get_sudo(),
                str(sudo_scope()),
                _carried(carry),
            )
            fn = _marked(fn, (*turn.ours, (_route, turn)))
        elif subagents and _background.get():
            fn = _marked(fn, ((_background, True), *_carried(background_carry)))
        return submit(self, fn, *args, **kwargs)

    setattr(run_single_child, _MARK, True)
    setattr(pool, "submit", carrying_submit)  # noqa: B010 (likewise)
    delegate_tool._run_single_child = run_single_child
    for name, dispatch in dispatches.items():
        setattr(async_delegation, name, _marked_background(dispatch))
    for owner, name, check in checks:
        setattr(owner, name, asked_as_the_turn(check))
    terminal_tool._get_sudo_password_callback = functools.wraps(get_sudo)(sudo_callback)
    terminal_tool._get_sudo_password_cache_scope = functools.wraps(sudo_scope)(sudo_cache_scope)
    return True


def in_background() -> bool:
    """Whether the calling thread runs a background delegation's work."""
    return _background.get()


def _marked(
    fn: Callable[..., Any], values: tuple[tuple[contextvars.ContextVar[Any], Any], ...]
) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        tokens = [(var, var.set(value)) for var, value in values]
        try:
            return fn(*args, **kwargs)
        finally:  # the pool's thread runs other work next
            for var, was in reversed(tokens):
                var.reset(was)

    return run


def _carried(
    carry: Sequence[contextvars.ContextVar[Any]],
) -> tuple[tuple[contextvars.ContextVar[Any], Any], ...]:
    """The values ``carry``'s variables have here; one with none keeps its default there."""
    return tuple((var, value) for var in carry if (value := var.get(_NONE)) is not _NONE)


def _within_a_turn(get_key: Callable[..., Any]) -> bool:
    """True on a turn's thread (hermes has a key) or a subagent's it carried to."""
    return not _background.get() and (_route.get() is not None or get_key(default="") != "")


def _marked_background(dispatch: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(dispatch)  # keeps the marks of other wrappers (``watches``)
    def dispatched(*args: Any, **kwargs: Any) -> Any:
        token = _background.set(True)  # hermes copies this context for the batch's thread
        try:
            return dispatch(*args, **kwargs)
        finally:
            _background.reset(token)

    return dispatched


def _attach(parent: Any, child: Any) -> bool:
    """Put ``child`` on ``parent``'s list of children to interrupt, if it is not;
    True when it was added."""
    children = getattr(parent, "_active_children", None)
    lock = getattr(parent, "_active_children_lock", None)
    if child is None or not isinstance(children, list) or lock is None:
        return False
    with lock:
        if any(c is child for c in children):
            return False
        children.append(child)
    if getattr(parent, "_interrupt_requested", False) is True:
        child.interrupt(getattr(parent, "_interrupt_message", None))
    return True


def _detach(parent: Any, child: Any) -> None:
    with parent._active_children_lock:  # hermes removes it itself when the child ends
        parent._active_children[:] = [c for c in parent._active_children if c is not child]
