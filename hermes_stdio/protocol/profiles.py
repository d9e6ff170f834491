"""The Hermes profiles a host can name. Names follow ``types``: snake_case here,
camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name
from .record import Record, doc_field

MAX_PROFILE_DESCRIPTION = 500


class ProfileInfo(Record):
    name: str = doc_field("What requests name it by; default is the Hermes home itself.")
    home: str = doc_field("Its directory.")
    model: str | None = doc_field("The default model its config.yaml names; null when none.")
    provider: str | None = doc_field("The provider its config.yaml names; null when none.")
    description: str = doc_field(
        "Its profile.yaml description, as hermes profile list shows it; empty when none."
    )
    workers: int = doc_field("Its worker processes running or starting now.")
    problem: str | None = doc_field(
        "Why a request that needs its worker fails with profile_unreadable now: its"
        " config.yaml is not YAML hermes could use (hermes would run on its defaults), nests"
        " too deeply, or a file hermes reads first is not a regular file. Null when none.",
        None,
    )
    active: bool = doc_field(
        "Whether it is the active profile: the one hermes' CLI runs without -p.", False
    )


class ProfileListChangedNotification(Record):
    """No fields: the profiles changed; profile/list gives them."""


class ProfileListResult(Record):
    profiles: list[ProfileInfo] = doc_field("default first, then the others by name.")


class ProfileCreateParams(Record):
    name: Annotated[str, Name(64)] = doc_field(
        "The new profile's name: 1-64 of a-z, 0-9, _ and - starting with a letter or digit"
        " (hermes' rule), not default, nor one hermes reserves (hermes, test, tmp, root, sudo)."
    )
    clone_from: str | None = doc_field(
        "Copy this profile's config.yaml, .env, SOUL.md, skills and memory into it (hermes"
        " profile create --clone-from); null: a fresh profile on hermes' defaults.",
        None,
    )
    no_skills: bool = doc_field(
        "Make a fresh profile without hermes' bundled skills (--no-skills); not with cloneFrom.",
        False,
    )
    description: Annotated[str, Name(MAX_PROFILE_DESCRIPTION)] | None = doc_field(
        "Its description (profile.yaml), as profile/list shows it.", None
    )


class ProfileCreateResult(Record):
    profile: ProfileInfo = doc_field("The new profile, as profile/list gives it.")


class ProfileDeleteParams(Record):
    name: Annotated[str, Name(64)] = doc_field("The profile to delete; never default.")


class ProfileDeleteResult(Record):
    home: str = doc_field("The directory that was removed.")


class ProfileRenameParams(Record):
    name: Annotated[str, Name(64)] = doc_field("The profile to rename; never default.")
    new_name: Annotated[str, Name(64)] = doc_field(
        "Its new name, by profile/create's rules: not default, nor one taken or reserved."
    )


class ProfileRenameResult(Record):
    profile: ProfileInfo = doc_field("The profile under its new name, as profile/list gives it.")


class ProfileSetDescriptionParams(Record):
    name: Annotated[str, Name(64)] = doc_field("The profile; default is the Hermes home's.")
    description: Annotated[str, Name(MAX_PROFILE_DESCRIPTION)] | None = doc_field(
        "Its new description (profile.yaml), as profile/list shows it; null clears it."
    )


class ProfileSetDescriptionResult(Record):
    profile: ProfileInfo = doc_field("The profile now, as profile/list gives it.")


class ProfileSetActiveParams(Record):
    name: Annotated[str, Name(64)] = doc_field("The profile; default clears the choice.")


class ProfileSetActiveResult(Record):
    profile: ProfileInfo = doc_field("The profile now, as profile/list gives it.")


MAX_ARCHIVE_PATH = 4096  # PATH_MAX


class ProfileExportParams(Record):
    name: Annotated[str, Name(64)] = doc_field("The profile to pack; default is the Hermes home's.")
    path: Annotated[str, Name(MAX_ARCHIVE_PATH)] = doc_field(
        "Where to write the archive: an absolute path ending in .tar.gz, in an existing"
        " directory; a file there is replaced."
    )


class ProfileExportResult(Record):
    path: str = doc_field("The archive written.")


class ProfileImportParams(Record):
    path: Annotated[str, Name(MAX_ARCHIVE_PATH)] = doc_field(
        "The archive to unpack (a .tar.gz profile/export or hermes profile export wrote):"
        " an absolute path."
    )
    name: Annotated[str, Name(64)] | None = doc_field(
        "The new profile's name, by profile/create's rules; null: the archive's own.", None
    )


class ProfileImportResult(Record):
    profile: ProfileInfo = doc_field("The new profile, as profile/list gives it.")
