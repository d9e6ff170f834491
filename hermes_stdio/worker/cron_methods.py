"""``cron/*`` requests: the profile's cron jobs, through hermes' ``cronjob`` tool.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``answer_off_reader``, ``queue``, ``sessions``, ``runs``, ``_lock``,
``profile``, ``opt_out``, ``_outbox``, ``_release`` and ``_launch``): each
request is answered off the reader (hermes reads and writes ``cron/jobs.json``
under a file lock). A job id the profile does not have is ``unknown_cron_job``
(``data.jobId``); a change hermes refuses is ``invalid_params`` with hermes'
reason; an agent without cron jobs (the synthetic one) is
``agent_unavailable``.

``cron/run`` answers ``{runId, sessionId}`` once the job is known, not paused
and not run now by a run of this worker (else ``invalid_params`` naming
``params.jobId``), then runs it on the
run's thread: ``run/started`` (the job's model, null for the profile's), the
job run through hermes' tool in a session of the run's own (listed while
the run lasts, then dropped: it holds no conversation), its agent's
approvals asked in the run, its activity reported into the run (a
``runner.SessionSink`` of the run's session: the adapter's callbacks, which
``Watch.attach`` gives the job's agent; steering text reaches that agent, the
run's ``steer_target``), and one
``run/completed``: ``complete`` with the job's agent's answer, ``error``
(``agent_error``, hermes' reason) when hermes did not run it or the job
failed, ``interrupted`` when ``run/interrupt`` (or the worker's stop) came
first: that interrupts the job's agent (``cron_run.Watch``). hermes' state
for the run's session (its "session" approvals) is forgotten at the end.

``cron/tick`` claims the profile's due jobs (``cron_fire.DueJobs``; not those
a run of this worker runs now, ``_cron_firing``) and answers ``{busy, runs}``
before any of those runs reaches the wire; each then runs as ``cron/run``'s
does, its ``run/started`` naming the job (``trigger`` type ``cron``, the job's
id and prompt). ``busy`` when another holds hermes' tick lock.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any

from ..protocol import cron as cr
from ..protocol import encode
from ..protocol import types as t
from ..protocol.opt_out import OptOut
from ..protocol.record import Record
from ..transport import Peer
from ..transport.log import log
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter, AgentUnavailable, CronRanNow
from .cron_run import Watch
from .cronjobs import CronJobs, CronRefused, UnknownCronJob
from .outbox import Outbox
from .parts import answer_through, request_error
from .runner import SessionSink
from .state import Run, RunTable, Session, new_id

MAX_OUTPUTS = 50


class CronMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    queue: Callable[[Request, str, Callable[[], None]], object]
    peer: Peer | None
    profile: str
    sessions: dict[str, Session]
    _lock: threading.Lock
    runs: RunTable
    opt_out: OptOut
    _outbox: Callable[[], Outbox | Callable[[bytes], bool]]
    _release: Callable[[Session, Run], None]
    _launch: Callable[[Request, Run, Callable[[], None]], t.RunStartResult]
    _spawn_run: Callable[[Run, Callable[[], None]], None]
    _cron_firing: set[str]

    def _cron(self, req: Request, act: Callable[[CronJobs], Record]) -> object:
        return answer_through(
            self.answer_off_reader, req, "cron jobs", self.adapter.cron_jobs, act, _refusal
        )

    def _h_cron_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._cron(req, lambda jobs: cr.CronListResult(jobs.listed()))

    def _h_cron_create(self, req: Request, p: cr.CronCreateParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.create(p)))

    def _h_cron_update(self, req: Request, p: cr.CronUpdateParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.update(p)))

    def _h_cron_pause(self, req: Request, p: cr.CronPauseParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.pause(p.job_id, p.reason)))

    def _h_cron_resume(self, req: Request, p: cr.CronJobParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.resume(p.job_id)))

    def _h_cron_remove(self, req: Request, p: cr.CronJobParams) -> object:
        return self._cron(req, lambda jobs: cr.CronJobResult(jobs.remove(p.job_id)))

    def _h_cron_output(self, req: Request, p: cr.CronOutputParams) -> object:
        if not 1 <= p.limit <= MAX_OUTPUTS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"limit must be 1 to {MAX_OUTPUTS}",
                field="params.limit",
            )
        return self._cron(req, lambda jobs: cr.CronOutputResult(jobs.outputs(p.job_id, p.limit)))

    def _h_cron_run(self, req: Request, p: cr.CronRunParams) -> object:
        def start() -> None:
            assert self.peer is not None
            try:
                jobs = self.adapter.cron_jobs()
                if jobs is None:
                    raise AgentUnavailable("this agent keeps no cron jobs")
                try:
                    job = jobs.runnable(p.job_id)
                except CronRefused as exc:  # paused
                    why = str(exc)
                    raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.jobId") from exc
                except UnknownCronJob as exc:
                    raise _unknown(exc) from exc
                model = job.get("model")
                session, run = self._cron_run(p.job_id, job.get("workdir"))
                session.review_edits = p.review_edits  # read at each edit (edit_review)
                fire = functools.partial(self.adapter.run_cron_job, session, jobs, p.job_id)
                started = {"profile": self.profile, "model": _model(model), "trigger": None}
                self._launch(req, run, lambda: self._run_job(session, run, p.job_id, started, fire))
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))

        return self.queue(req, "cron", start)

    def _h_cron_tick(self, req: Request, p: t.WorkerTarget) -> object:
        def start() -> None:
            assert self.peer is not None
            try:
                due = self.adapter.due_cron_jobs()
                if due is None:
                    raise AgentUnavailable("this agent keeps no cron jobs")
                with self._lock:
                    busy = set(self._cron_firing)
                claimed = due.claim(busy)
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))
                return
            fired: list[tuple[str, Run, Callable[[], None]]] = []
            for job in claimed or []:
                job_id = str(job["id"])
                try:
                    session, run = self._cron_run(job_id, job.get("workdir"))
                except RpcError:  # a cron/run started it since it was claimed
                    continue
                prompt = job.get("prompt")
                run.trigger = t.RunTrigger(
                    "cron", job_id, prompt if isinstance(prompt, str) else ""
                )
                started = {
                    "profile": self.profile,
                    "model": _model(job.get("model")),
                    "trigger": encode(run.trigger),
                }
                fire = functools.partial(self.adapter.fire_cron_job, session, due, job)
                fired.append(
                    (
                        job_id,
                        run,
                        functools.partial(self._run_job, session, run, job_id, started, fire),
                    )
                )
            runs = [cr.CronTickRun(job_id, r.run_id, r.session_id) for job_id, r, _ in fired]
            # The answer goes out before any of its runs can reach the wire.
            self.peer.respond(req.id, encode(cr.CronTickResult(claimed is None, runs)))
            for _, run, body in fired:
                try:
                    self._spawn_run(run, body)
                except Exception as exc:  # no thread: the run still ends, once
                    error = f"the run could not start: {exc}"
                    run.complete("error", None, t.RunError(t.RunErrorType.INTERNAL_ERROR, error))

        return self.queue(req, "cron", start)

    def _cron_run(self, job_id: str, workdir: Any) -> tuple[Session, Run]:
        """A session of the job's run's own, listed while the run lasts (where the
        host's answers to its asks find it), its workspace the job's ``workdir`` (where
        hermes runs its agent: its edits' diffs are named from there), and its run;
        ``invalid_params`` if a run of this worker runs the job now (hermes' claim
        would let a second run through once its claim has expired, after 300 s)."""
        session = Session(new_id("cron"), self.profile)
        if isinstance(workdir, str) and os.path.isabs(workdir):
            session.workspace = workdir
        run = Run(new_id("run"), session.session_id, self._outbox(), self.opt_out)
        run.on_complete = lambda: self._cron_ended(session, run, job_id)
        session.run = run
        with self._lock:
            if job_id in self._cron_firing:
                why = f"cron job {job_id} is running now: wait for its run to end"
                raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.jobId")
            self.sessions[session.session_id] = session
            self.runs.add(run)
            self._cron_firing.add(job_id)
        return session, run

    def _cron_ended(self, session: Session, run: Run, job_id: str) -> None:
        self._release(session, run)
        with self._lock:  # it held no conversation: nothing stays loaded
            self._cron_firing.discard(job_id)
            session.closing = True
            if self.sessions.get(session.session_id) is session:
                del self.sessions[session.session_id]

    def _run_job(
        self,
        session: Session,
        run: Run,
        job_id: str,
        started: dict[str, Any],
        fire: Callable[[Watch], CronRanNow],
    ) -> None:
        run.emit("run/started", started)
        watch = Watch()
        run.steer_target = lambda: watch.first  # hermes builds the job's agent
        watch.attach(self.adapter.callbacks(SessionSink(session, self.adapter.steer), session))
        stop = threading.Event()
        run.wake_on_stop(stop)  # set on an interrupt, or once the run has completed

        def relay() -> None:
            stop.wait()
            if run.interrupt_requested:
                watch.interrupt(run.interrupt_message)

        threading.Thread(target=relay, name=f"stop-{run.run_id[-8:]}", daemon=True).start()
        try:
            ran = fire(watch)
        except Exception as exc:
            log(f"worker: cron job {job_id} failed to run: {exc!r}")
            run.complete("error", None, t.RunError(t.RunErrorType.AGENT_ERROR, f"{exc}"))
            return
        finally:
            self.adapter.forget_session(session.session_id)
        turn = ran.turn
        output = t.RunOutput(
            turn.final_response if turn else None,
            len(turn.messages) if turn else 0,
            turn.api_calls if turn else 0,
            turn.usage if turn else None,
        )
        if run.interrupt_requested:
            run.complete("interrupted", output, None)
        elif not (ran.ran and ran.ok):
            error = ran.error or "the cron job failed"
            run.complete("error", None, t.RunError(t.RunErrorType.AGENT_ERROR, error))
        else:
            run.complete("complete", output, None)


def _model(model: object) -> str | None:
    return model if isinstance(model, str) else None


def _unknown(exc: UnknownCronJob) -> RpcError:
    return RpcError(ErrorType.UNKNOWN_CRON_JOB, f"no cron job {exc}", jobId=str(exc))


def _refusal(exc: Exception) -> RpcError | None:
    if isinstance(exc, UnknownCronJob):
        return _unknown(exc)
    if isinstance(exc, CronRefused):
        return RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params")
    return None
