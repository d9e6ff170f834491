"""A project directory as hermes' agents see it (``project/facts``): its root, project
files, package managers and the commands that verify a change. Names follow ``types``:
snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from .names import WorkerKey
from .record import Record, doc_field


class ProjectFactsParams(Record):
    workspace: str = doc_field("The directory: an absolute path to an existing one.")
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class ProjectFacts(Record):
    root: str = doc_field(
        "The project's root: the top of its git repository, else the nearest directory"
        " with a project file."
    )
    manifests: list[str] = doc_field(
        "The project files at the root, e.g. pyproject.toml, package.json, Makefile."
    )
    package_managers: list[str] = doc_field("What its lock files name, e.g. uv, pnpm.")
    verify_commands: list[str] = doc_field(
        "The commands hermes tells its agents to verify a change with, run at the root,"
        " e.g. pytest, npm run test."
    )
    context_files: list[str] = doc_field("Its agent instruction files: AGENTS.md, CLAUDE.md...")


class ProjectFactsResult(Record):
    facts: ProjectFacts | None = doc_field(
        "The project the directory is in; null when it is in none (hermes' coding posture"
        " is then off)."
    )
