"""Sessions and runs held by a worker, and how a run's notifications are numbered.

Contract:
- ``Run.emit`` / ``Run.delta`` queue run-scoped notifications under the run's
  lock; each takes its ``seq`` (1, 2, 3 ...) when written (see ``outbox``), so
  the wire order is the seq order even when callbacks arrive on several
  threads, and lagging deltas coalesce. What the host opted out of (its
  ``OptOut``) is dropped before it is queued, so it takes no ``seq``.
- ``Run.complete`` sends the one ``run/completed``; afterwards every emit is
  dropped (late stream deltas cannot follow the terminal notification). Its
  ``on_complete`` is called once and then let go, so a finished run is in no
  reference cycle: the RunTable letting it go frees it at once. Its
  ``steer_target`` is let go as well: a run kept for ``run/result`` holds no
  agent. A run
  interrupted because its worker stops (``worker_stopping``) ends as an
  ``error`` of type ``worker_stopped``, never as a user's interrupt.
- Steering text (``run/steer``) sent before the turn's first tool call waits in
  the run (``queue_steer``) until that call starts (``open_steering``). Whoever
  makes a run sets ``steer_target``, the one way to the agent steering reaches
  (the session's, or a cron job's); it gives None until there is one.
- ``RunTable`` keeps active runs, plus finished ones for ``ttl_s`` and at
  most ``keep`` of them: records hold the outcome, never the streamed text.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..protocol import encode
from ..protocol import types as t
from ..protocol.opt_out import NO_OPT_OUT, OptOut
from .images import Attachment
from .notices import Notice
from .outbox import DeltaItem, NoteItem, Outbox, as_outbox, delta_head
from .usage import UsageWatch


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


@dataclass(eq=False)
class Session:
    session_id: str
    profile: str
    model: str | None = None
    provider: str | None = None
    instructions: str | None = None
    reasoning_effort: t.ReasoningEffort | None = None  # run/start's; the profile's when None
    workspace: str | None = None
    # The directory its last turn registered with hermes as its working directory
    # (scope): while it stays, where its commands cd-ed to is kept across turns.
    cwd_registered: str | None = None
    # run/start's disabledToolsets (sorted; None: none), and those its agent was built
    # with: an agent built with others is replaced before the next turn.
    disabled_toolsets: tuple[str, ...] | None = None
    built_without: tuple[str, ...] | None = None
    source: str | None = None
    # autoApprove (run/start, session/autoApprove): hermes' per-session YOLO while
    # ``turns_inside`` (its turns inside ``scope.session_scope``) is not 0.
    auto_approve: bool = False
    turns_inside: int = 0
    review_edits: bool = False  # run/start's reviewEdits (edit_review)
    agent: Any = None
    history: list[dict[str, Any]] = field(default_factory=list)
    run: Run | None = None
    # Not held in memory when first asked for: its stored history may be resumed.
    restore: bool = False
    # Set by session/switchModel: the next run switches its agent to ``model``.
    switch_pending: bool = False
    # Who compresses the context: run/start's compression, kept in the profile's
    # database (saved when ``compression_new``); None until known (agent by default).
    compression: str | None = None
    compression_new: bool = False
    # run/start forceCompress: compress before the next turn.
    compress_next: bool = False
    # The workspace kept with it in the profile's database: read back once when no
    # run/start gave one; written, with the row it went on, after a turn changed either.
    workspace_recalled: bool = False
    workspace_stored: tuple[str, str] | None = None
    # session/destroy asked: held only until its run ends, then replaced by a fresh one.
    closing: bool = False
    last_used_at: int = field(default_factory=lambda: int(time.time() * 1000))
    build_lock: threading.Lock = field(default_factory=threading.Lock)
    # model, provider, instructions, reasoning_effort, disabled_toolsets are kept in the
    # profile's database (``settings``): read back once, for those no request has set
    # since this object was made (``chosen``), then stored as they change.
    settings_recalled: bool = False
    settings_chosen: set[str] = field(default_factory=set)
    # The model and provider a host chose or that were read back, even one that does
    # not resolve now (``model`` is also the model the agent resolved when nobody chose
    # one: never stored).
    chosen_model: tuple[str, str | None] | None = None
    settings_stored: Any = None  # settings.Settings as last stored or read back
    settings_lock: threading.Lock = field(default_factory=threading.Lock)  # the fields
    settings_saving: threading.Lock = field(default_factory=threading.Lock)  # never the reader's
    # Background work that finished for it, each waiting for a run of its own.
    notices: list[Notice] = field(default_factory=list)
    # hermes keeps some of a session's state process-wide under its id (``scope``):
    # what an earlier conversation under the id left there goes before the next turn
    # (``forget_hermes``), and what it read when its history was replaced (``forget_reads``).
    forget_hermes: bool = True
    forget_reads: bool = False

    def choose(self, **values: Any) -> None:
        """Set settings a request chose (``model`` goes with ``provider``): they win over
        the stored ones."""
        with self.settings_lock:
            for name, value in values.items():
                setattr(self, name, value)
                self.settings_chosen.add("model" if name == "provider" else name)
            if "model" in values and self.model is not None:
                self.chosen_model = (self.model, self.provider)

    @property
    def discarded(self) -> bool:
        """Destroyed and its run over: the next request starts a fresh session."""
        return self.closing and self.run is None

    def info(self) -> t.SessionInfo:
        run = self.run
        return t.SessionInfo(
            session_id=self.session_id,
            loaded=True,
            running=run is not None,
            run_id=run.run_id if run is not None else None,
            profile=self.profile,
            model=self.model,
            message_count=len(self.history),
            last_used_at=self.last_used_at,
            reasoning_effort=self.reasoning_effort,
            workspace=self.workspace,
            disabled_toolsets=list(self.disabled_toolsets) if self.disabled_toolsets else None,
            auto_approve=self.auto_approve,
            review_edits=self.review_edits,
        )


def _no_agent() -> Any:
    return None


class Run:
    def __init__(
        self,
        run_id: str,
        session_id: str,
        out: Outbox | Callable[[bytes], bool],
        opt_out: OptOut = NO_OPT_OUT,
    ) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self._out = as_outbox(out)
        self._lock = threading.Lock()
        self._seq = 0
        self.done = False
        self.interrupt_requested = False
        self.interrupt_message: str | None = None
        self.final: t.RunResultResult | None = None
        self.finished_at = 0.0
        # Called inside complete(), before run/completed is queued: whatever it frees
        # (the session) is free by the time the host hears the run ended.
        self.on_complete: Callable[[], None] | None = None
        self._delta_head = delta_head(run_id, session_id)
        # What the host opted out of is dropped here, before it takes a seq.
        self._opt_out = opt_out
        self._no_deltas = opt_out.mutes("run/delta")
        self.last_written = 0.0  # set by its items as they are rendered (outbox)
        self.expand_commands = True  # run/start expandCommands
        self.expand_references = True  # run/start expandReferences
        self.images: list[Attachment] = []  # run/start images, checked
        self._steers: list[str] = []
        self._steering = False
        self.worker_stopping = False  # set before the worker interrupts it to stop
        self._wakers: set[threading.Event] = set()
        self.usage: UsageWatch | None = None  # set as its turn begins
        self.trigger: t.RunTrigger | None = None  # set when the worker started it itself
        # The agent run/steer reaches once steering is open: the session's, or a cron
        # job's (hermes builds it, so only the job's watch knows it).
        self.steer_target: Callable[[], Any] = _no_agent

    def request_interrupt(self, message: str | None) -> None:
        with self._lock:
            self.interrupt_requested = True
            self.interrupt_message = message
            self._wake()

    def wake_on_stop(self, event: threading.Event) -> Callable[[], None]:
        """Set ``event`` once the run is asked to stop or completes (at once if it
        already was); the returned function stops watching."""
        with self._lock:
            if self.done or self.interrupt_requested:
                event.set()
            else:
                self._wakers.add(event)

        def forget() -> None:
            with self._lock:
                self._wakers.discard(event)

        return forget

    def _wake(self) -> None:
        for event in self._wakers:
            event.set()
        self._wakers.clear()

    def queue_steer(self, text: str) -> bool:
        """Keep steering text until the turn's first tool call; False once it has
        started (steer the agent directly then)."""
        with self._lock:
            if self._steering:
                return False
            self._steers.append(text)
            return True

    def open_steering(self) -> list[str]:
        """The turn's first tool call has started: what was queued for it; later text
        goes to the agent."""
        with self._lock:
            self._steering = True
            queued, self._steers = self._steers, []
            return queued

    def next_seq(self) -> int:
        # Only the outbox's single draining thread renders items, in queue order.
        self._seq += 1
        return self._seq

    def emit(self, method: str, payload: dict[str, Any]) -> bool:
        with self._lock:
            if self.done:
                return False
            if self._opt_out.mutes_run_note(method, payload):
                return True
            return self._out.send_lazy(NoteItem(self, method, payload))

    def delta(self, text: str) -> bool:
        with self._lock:
            if self.done:
                return False
            if self._no_deltas:
                return True
            if self._out.merge_tail(self, text):
                return True
            return self._out.send_lazy(DeltaItem(self, self._delta_head, text))

    def complete(
        self,
        status: t.RunStatus,
        result: t.RunOutput | None = None,
        error: t.RunError | None = None,
    ) -> bool:
        with self._lock:
            if self.done:
                return False
            if status == "interrupted" and self.worker_stopping:
                status, result = "error", None
                error = t.RunError(
                    t.RunErrorType.WORKER_STOPPED, "the worker stopped before the run finished"
                )
            self.final = t.RunResultResult(self.run_id, self.session_id, status, result, error)
            self.done = True
            self._wake()
            self.finished_at = time.monotonic()
            # Once, then dropped: a callback that refers to the run (the service's
            # does) would otherwise keep it in a reference cycle, so a finished run
            # the RunTable let go would wait for a full garbage collection.
            on_complete, self.on_complete = self.on_complete, None
            self.steer_target = _no_agent
            if on_complete is not None:
                on_complete()
            payload = {"status": status, "result": encode(result), "error": encode(error)}
            self._out.send_lazy(NoteItem(self, "run/completed", payload))
            return True

    def status(self) -> t.RunResultResult:
        return self.final or t.RunResultResult(self.run_id, self.session_id, "running", None, None)


class RunTable:
    def __init__(self, keep: int = 256, ttl_s: float = 900.0) -> None:
        self._lock = threading.Lock()
        self._active: dict[str, Run] = {}
        self._finished: OrderedDict[str, Run] = OrderedDict()
        self.keep = keep
        self.ttl_s = ttl_s

    def add(self, run: Run) -> None:
        with self._lock:
            self._active[run.run_id] = run

    def finished(self, run: Run) -> None:
        with self._lock:
            self._active.pop(run.run_id, None)
            self._finished[run.run_id] = run
            self._prune_locked()

    def get(self, run_id: str) -> Run | None:
        with self._lock:
            self._prune_locked()
            return self._active.get(run_id) or self._finished.get(run_id)

    def active(self) -> list[Run]:
        with self._lock:
            return list(self._active.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._active) + len(self._finished)

    def _prune_locked(self) -> None:
        cutoff = time.monotonic() - self.ttl_s
        while self._finished:
            oldest = next(iter(self._finished.values()))
            if len(self._finished) <= self.keep and oldest.finished_at >= cutoff:
                break
            self._finished.popitem(last=False)
