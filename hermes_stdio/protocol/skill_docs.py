"""A skill's ``SKILL.md``, for a host's skill editor: read, replaced, created and
deleted as hermes' ``skill_manage`` does. Names follow ``types``: snake_case here,
camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name
from .names import WorkerKey
from .record import Record, doc_field
from .toolbox import MAX_TOGGLE_NAME

SkillName = Annotated[str, Name(MAX_TOGGLE_NAME)]


class SkillReadParams(Record):
    name: SkillName = doc_field("The skill's name.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SkillReadResult(Record):
    name: str = doc_field("The skill's name.")
    path: str = doc_field("Its SKILL.md (absolute).")
    version: str = doc_field("The file's bytes as a SHA-256 hex digest: skill/write's check.")
    content: str = doc_field("Its text (a byte that is not UTF-8 is given as U+FFFD).")


class SkillWriteParams(Record):
    name: SkillName = doc_field("The skill's name.")
    content: str = doc_field("The new SKILL.md: YAML frontmatter (name, description), then text.")
    expected_version: str | None = doc_field(
        "The version it was edited from; when the file holds another, nothing is written.", None
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SkillCreateParams(Record):
    name: SkillName = doc_field("The new skill's name (its directory's).")
    content: str = doc_field("Its SKILL.md: YAML frontmatter (name, description), then text.")
    category: str | None = doc_field("A directory to group it in, under skills/.", None)
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SkillWriteResult(Record):
    name: str = doc_field("The skill's name.")
    path: str = doc_field("Its SKILL.md (absolute).")
    version: str = doc_field("The file's new version.")


class SkillDeleteParams(Record):
    name: SkillName = doc_field("The skill's name.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SkillDeleteResult(Record):
    name: str = doc_field("The skill's name.")
    path: str = doc_field("The SKILL.md it had (its directory is gone).")
