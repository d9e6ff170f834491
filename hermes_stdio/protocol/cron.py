"""A profile's cron jobs: prompts hermes' gateway runs on a schedule, which a
host lists and manages as hermes' own TUI does (``cron.manage``). Names follow
``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name
from .names import WorkerKey
from .record import Record, doc_field

CronJobId = Annotated[str, Name(64)]


class CronJobInfo(Record):
    job_id: str = doc_field("Names the job in cron/update, cron/pause, cron/resume, cron/remove.")
    name: str = doc_field("Its name; the start of its prompt when it was given none.")
    schedule: str = doc_field("When it runs, as hermes shows it, e.g. every 60m, 0 9 * * *.")
    prompt: str = doc_field("What its agent is asked (its first 100 characters, then ...).")
    skills: list[str] = doc_field("Skills loaded before its prompt.")
    repeat: str = doc_field(
        "How often it runs in all, as hermes shows it: forever, once, 3 times, or 1/3 once"
        " it has run."
    )
    deliver: str = doc_field("Where hermes' gateway delivers its output, e.g. local, telegram.")
    enabled: bool = doc_field("False once paused (or finished).")
    state: str = doc_field("hermes' state for it: scheduled, paused, completed...")
    next_run_at: str | None = doc_field("When it runs next (ISO 8601); null when it will not.")
    last_run_at: str | None = doc_field("When it last ran (ISO 8601); null before its first run.")
    last_status: str | None = doc_field("How its last run went: ok, or error; null before one.")
    last_error: str | None = doc_field("Why its last run or delivery failed; null otherwise.")
    paused_reason: str | None = doc_field("Why it was paused; null when it is not or none given.")
    model: str | None = doc_field("The model its runs use; null: the profile's default.")
    workdir: str | None = doc_field(
        "The directory its agent works in (its terminal, files and the project's context"
        " files, as a turn started there); null: none."
    )
    enabled_toolsets: list[str] | None = doc_field(
        "The only toolsets its agent gets; null: the profile's cron toolsets."
    )


class CronListResult(Record):
    jobs: list[CronJobInfo] = doc_field("Every job of the profile, paused ones included.")


class CronCreateParams(Record):
    schedule: str = doc_field(
        "When to run, as hermes takes it: 30m (once, in 30 minutes), every 2h, a cron"
        " expression (0 9 * * *), or an ISO time (once)."
    )
    prompt: str = doc_field("What the job's agent is asked; self-contained.")
    name: str | None = doc_field("A name to show; the start of the prompt when absent.", None)
    repeat: int | None = doc_field("Run this many times in all; forever when absent.", None)
    skills: list[str] | None = doc_field("Skills to load before the prompt.", None)
    deliver: str | None = doc_field(
        "Where hermes' gateway delivers its output (local, telegram...); local when absent.",
        None,
    )
    model: str | None = doc_field("The model its runs use; the profile's when absent.", None)
    workdir: str | None = doc_field(
        "An absolute path of a directory its agent works in; none when absent.", None
    )
    enabled_toolsets: list[str] | None = doc_field(
        "The only toolsets its agent gets; the profile's cron toolsets when absent.", None
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class CronUpdateParams(Record):
    job_id: CronJobId = doc_field("The job to change.")
    schedule: str | None = doc_field("A new schedule; unchanged when absent.", None)
    prompt: str | None = doc_field("A new prompt; unchanged when absent.", None)
    name: str | None = doc_field("A new name; unchanged when absent.", None)
    repeat: int | None = doc_field(
        "A new total number of runs (0 or less: forever); unchanged when absent.", None
    )
    skills: list[str] | None = doc_field("New skills; unchanged when absent.", None)
    deliver: str | None = doc_field("A new delivery target; unchanged when absent.", None)
    model: str | None = doc_field(
        'A new model; "" for the profile\'s; unchanged when absent.', None
    )
    workdir: str | None = doc_field(
        'A new working directory (absolute); "" for none; unchanged when absent.', None
    )
    enabled_toolsets: list[str] | None = doc_field(
        "New toolsets; [] for the profile's cron toolsets; unchanged when absent.", None
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class CronJobParams(Record):
    job_id: CronJobId = doc_field("The job.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class CronRunParams(Record):
    job_id: CronJobId = doc_field("The job.")
    review_edits: bool = doc_field(
        "Hold the job's agent's file edits for the host's approval, shown as diffs, as"
        " run/start's reviewEdits does for a turn.",
        False,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class CronTickRun(Record):
    job_id: str = doc_field("The job that came due.")
    run_id: str = doc_field("The run it runs in: run/started (trigger type cron) comes next.")
    session_id: str = doc_field("The run's session, listed while the run lasts.")


class CronTickResult(Record):
    busy: bool = doc_field(
        "True when another scheduler was ticking the profile (a hermes gateway, or another"
        " worker of it): nothing was fired; its jobs are its to fire."
    )
    runs: list[CronTickRun] = doc_field(
        "A run for each job that was due and is now claimed, in hermes' order; [] when none."
    )


class CronPauseParams(Record):
    job_id: CronJobId = doc_field("The job.")
    reason: str | None = doc_field("Why it is paused; shown in its pausedReason.", None)
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class CronJobResult(Record):
    job: CronJobInfo = doc_field("The job as it is now (as it was, for cron/remove).")


class CronOutputParams(Record):
    job_id: CronJobId = doc_field("The job whose runs' output to read.")
    limit: int = doc_field("At most this many, newest first (1 to 50).", default=5)
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class CronOutput(Record):
    saved_at: str = doc_field(
        "When the run's output was saved, in hermes' time zone: YYYY-MM-DDTHH:MM:SS."
    )
    text: str = doc_field(
        "The output as hermes saved it (markdown: the job, its prompt, its agent's"
        " response), at most 256 KiB of it."
    )
    truncated: bool = doc_field("Whether the file holds more than text.")


class CronOutputResult(Record):
    outputs: list[CronOutput] = doc_field(
        "Newest first; hermes keeps the last runs' (its cron.output_retention)."
    )


class CronListChangedNotification(Record):
    profile: str = doc_field("The profile whose cron jobs changed: cron/list gives them.")
