"""Pushes of a session's background work as it starts and ends: the processes of
hermes' process registry and the subagents of its ``async_delegation`` (both passed in).

Contract: ``watch_processes(registry, deliver)`` calls ``deliver("started",
session_id, info)`` once for each process of one of this worker's sessions that
starts, and ``deliver("exited", session_id, info)`` once when it ends (exits or is
killed); ``watch_subagents(delegation, deliver)`` does the same with ``"started"``
and ``"ended"`` for each subagent of an async ``delegate_task`` (``info`` a
``SubagentInfo``, its ``status`` how it ended). ``deliver`` runs on the thread
that started the work or saw it end. Work that ends before its start was told
has its start told first, so a start always comes first; an end is told before
hermes hands the subagent's report on (a run it starts comes after it). Work not
started by one of our sessions' turns (``keys.PREFIX``) is not told. Each wraps
hermes' functions that start and end the work (processes: the registry's
``spawn_local``, ``spawn_via_env``, what its terminal tool starts one with, and
``_move_to_finished``, its one place for an end; subagents: the module's
``dispatch_async_delegation``, ``dispatch_async_delegation_batch`` and
``_persist_completion``, which both its ways of ending one call) and returns
None, doing nothing, when one is missing or they are already wrapped. A failing
``deliver`` is logged; hermes' work goes on.

``ProcessWatch.report_late()`` (``watch_processes`` returns the watch) makes up
for a race in hermes: its terminal tool marks a background command
``notify_on_complete`` only after spawning it, and the registry queues a
completion only for a process marked when it ends, so one that ends at once
(an instant ``echo``) never reported. Called after each tool returns, it queues
the completion hermes skipped (``background.completion_of``) for each of our
sessions' processes that ended unmarked and has been marked since; one marked
before the watch noted its end (the tool returned meanwhile) is queued then.
hermes' own event, if the mark came in the moment between, is queued first: the
consumer keeps a process's first completion (``notices.watch``).

``SubagentWatch.delegation_of(session_id, identity)`` (what ``watch_subagents``
returns) names the delegation a subagent's progress report belongs to: hermes
relays a child's activity to its parent agent's progress callback with the
child's ``goal``, ``task_index`` and ``task_count`` (``identity``), which match
one goal of one of the session's delegations; the first report of each
``subagent_id`` claims the first such delegation still at work whose task no
other child claimed, later ones follow it; a subagent's own subagent (one with a
``parent_id``) belongs to its parent's delegation. None for a report that matches
none (a subagent hermes runs within the turn, which it keeps no record of; hermes
records a delegation before its child runs, so a child's first report decides).
The subagent's start is told first, if it was not yet, so a start always comes
before its progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

from ..protocol.processes import ProcessInfo, SubagentInfo, SubagentProgress
from ..transport.log import log
from .background import completion_of, info_of, subagent_of
from .keys import PREFIX, hermes_session_key

SPAWNS = ("spawn_local", "spawn_via_env")
DISPATCHES = ("dispatch_async_delegation", "dispatch_async_delegation_batch")
# Both of hermes' completion paths (one subagent, a batch) store the event through it,
# then queue it for the session.
PERSIST = "_persist_completion"
WRAPPED = "hermes_stdio_watch"
# Subagents whose delegation a worker remembers; one that is forgotten is matched again.
MAX_CLAIMS = 4096
# Processes that ended before hermes marked them; its mark comes within one tool call.
MAX_UNMARKED = 256

Change = Literal["started", "exited", "ended"]
# session id, subagent (delegation) id, what it did
ProgressDeliver = Callable[[str, str, SubagentProgress], None]


class _Announcer:
    """Tells each piece of work's start once and its end once, the start first."""

    def __init__(self, what: str, deliver: Callable[[Change, str, Any], None]) -> None:
        self._what, self._deliver = what, deliver
        self._told: set[tuple[Change, str]] = set()  # hermes may end one twice (a kill, an exit)
        self._lock = threading.Lock()

    def tell(self, change: Change, work_id: str, key: str, info: Callable[[], Any]) -> None:
        if not key.startswith(PREFIX) or len(key) == len(PREFIX):
            return  # not started by one of our sessions' turns
        # Held while telling: work that ends at once is never told ended first.
        with self._lock:
            if (change, work_id) in self._told:
                return
            changes: list[Change] = [change]
            if change != "started" and ("started", work_id) not in self._told:
                changes.insert(0, "started")  # it ended before its start returned
            for each in changes:
                self._told.add((each, work_id))
                try:
                    self._deliver(each, key[len(PREFIX) :], info())
                except Exception as exc:  # hermes' threads must go on
                    log(f"worker: telling of {self._what} {work_id} {each} failed: {exc!r}")


def _wrappable(owner: Any, names: tuple[str, ...]) -> dict[str, Callable[..., Any]] | None:
    found = {name: getattr(owner, name, None) for name in names}
    if not all(callable(f) for f in found.values()):
        return None
    if any(getattr(f, WRAPPED, False) for f in found.values()):
        return None
    return {name: f for name, f in found.items() if f is not None}


def _install(owner: Any, wrappers: dict[str, Callable[..., Any]]) -> None:
    for name, wrapper in wrappers.items():
        setattr(wrapper, WRAPPED, True)
        setattr(owner, name, wrapper)


class ProcessWatch:
    def __init__(self, registry: Any, strip: Callable[[str], str]) -> None:
        self._registry, self._strip = registry, strip
        self._unmarked: dict[str, Any] = {}  # process id -> process
        self._lock = threading.Lock()

    def ended_unmarked(self, proc: Any) -> None:
        key = str(getattr(proc, "session_key", "") or "")
        if not key.startswith(PREFIX):
            return
        with self._lock:
            # Looked at again under the lock: a mark since hermes finished it may have
            # been followed by a report_late that found nothing yet.
            if not getattr(proc, "notify_on_complete", False):
                if len(self._unmarked) >= MAX_UNMARKED:  # never marked: no notify_on_complete
                    del self._unmarked[next(iter(self._unmarked))]
                self._unmarked[str(proc.id)] = proc
                return
        self._registry.completion_queue.put(completion_of(proc, self._strip))

    def report_late(self) -> None:
        with self._lock:
            if not self._unmarked:
                return
            due = [p for p in self._unmarked.values() if getattr(p, "notify_on_complete", False)]
            for proc in due:
                del self._unmarked[str(proc.id)]
        for proc in due:
            self._registry.completion_queue.put(completion_of(proc, self._strip))


def watch_processes(
    registry: Any,
    deliver: Callable[[Change, str, ProcessInfo], None],
    strip: Callable[[str], str] = str,
) -> ProcessWatch | None:
    found = _wrappable(registry, ("_move_to_finished", *SPAWNS))
    if found is None:
        return None
    announcer = _Announcer("process", deliver)
    watch = ProcessWatch(registry, strip)

    def tell(change: Change, proc: Any) -> None:
        key = str(getattr(proc, "session_key", "") or "")
        announcer.tell(change, str(proc.id), key, lambda: info_of(proc))

    finish = found["_move_to_finished"]

    def move_to_finished(proc: Any) -> None:
        marked = bool(getattr(proc, "notify_on_complete", False))  # before hermes reads it
        finish(proc)
        if not marked:
            watch.ended_unmarked(proc)
        tell("exited", proc)

    def watched(spawn: Callable[..., Any]) -> Callable[..., Any]:
        def spawned(*args: Any, **kwargs: Any) -> Any:
            proc = spawn(*args, **kwargs)
            tell("started", proc)
            return proc

        return spawned

    _install(
        registry,
        {"_move_to_finished": move_to_finished, **{n: watched(found[n]) for n in SPAWNS}},
    )
    return watch


class SubagentWatch:
    def __init__(self, delegation: Any, announcer: _Announcer) -> None:
        self._delegation, self._announcer = delegation, announcer
        # subagent_id -> (delegation id, task index); None: no delegation's (run within a turn)
        self._claims: dict[str, tuple[str, int] | None] = {}
        self._lock = threading.Lock()

    def delegation_of(self, session_id: str, identity: dict[str, Any]) -> str | None:
        child = str(identity.get("subagent_id") or "")
        with self._lock:
            if child in self._claims:  # its first report decided
                claimed = self._claims[child]
                return None if claimed is None else claimed[0]
            parent = str(identity.get("parent_id") or "")
            if parent:  # a subagent's own subagent: its delegation is its parent's
                record, task = None, self._claims.get(parent)
            else:
                record, task = self._match(hermes_session_key(session_id), identity)
            if child:  # hermes records a delegation before its child runs: no match is final
                if len(self._claims) >= MAX_CLAIMS:  # forget the oldest children's
                    for old in list(self._claims)[: MAX_CLAIMS // 2]:
                        del self._claims[old]
                self._claims[child] = task
        if task is None:
            return None
        if record is not None:
            key = hermes_session_key(session_id)
            self._announcer.tell("started", task[0], key, lambda: subagent_of(record))
        return task[0]

    def _match(
        self, key: str, identity: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, tuple[str, int] | None]:
        index, count = identity.get("task_index"), identity.get("task_count")
        if not isinstance(index, int) or not isinstance(count, int):
            return None, None
        goal, taken = str(identity.get("goal") or "").strip(), set(self._claims.values())
        for record in self._delegation.list_async_delegations():
            goals = record.get("goals") if record.get("is_batch") else [record.get("goal")]
            task = (str(record.get("delegation_id")), index)
            if (
                record.get("session_key") == key
                and record.get("status") in ("running", "finalizing")
                and isinstance(goals, list)
                and len(goals) == count
                and 0 <= index < count
                and str(goals[index] or "").strip() == goal
                and task not in taken
            ):
                return record, task
        return None, None


def watch_subagents(
    delegation: Any, deliver: Callable[[Change, str, SubagentInfo], None]
) -> SubagentWatch | None:
    found = _wrappable(delegation, (PERSIST, *DISPATCHES))
    if found is None:
        return None
    announcer = _Announcer("subagent", deliver)
    persist = found[PERSIST]

    def persist_completion(event: Any, *rest: Any, **kw: Any) -> Any:
        if isinstance(event, dict):  # the completion event, with how it ended
            key, sub_id = str(event.get("session_key") or ""), str(event.get("delegation_id"))
            announcer.tell("ended", sub_id, key, lambda: subagent_of(event))
        return persist(event, *rest, **kw)

    def watched(dispatch: Callable[..., Any]) -> Callable[..., Any]:
        def dispatched(*args: Any, **kwargs: Any) -> Any:
            result = dispatch(*args, **kwargs)
            if isinstance(result, dict) and result.get("status") == "dispatched":
                sub_id = str(result.get("delegation_id"))
                listed = delegation.list_async_delegations()
                record = next((r for r in listed if r.get("delegation_id") == sub_id), None)
                if record is not None:  # None: hermes let go of it already (it ended)
                    key = str(record.get("session_key") or "")
                    announcer.tell("started", sub_id, key, lambda: subagent_of(record))
            return result

        return dispatched

    _install(
        delegation,
        {PERSIST: persist_completion} | {n: watched(found[n]) for n in DISPATCHES},
    )
    return SubagentWatch(delegation, announcer)
