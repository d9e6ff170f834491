"""Signing a profile in to a model provider's account (``account/login``: the OAuth
device flow, the user's browser on any device) and out again. Names follow
``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name
from .names import WorkerKey
from .record import Record, doc_field

AccountLoginId = Annotated[str, Name(64)]
ProviderSlug = Annotated[str, Name(64)]


class AccountLoginParams(Record):
    provider: ProviderSlug = doc_field(
        "The provider, as model/list names it; one whose signIn is true."
    )
    profile: str | None = doc_field("Profile name; null or absent means default.", None)
    worker_key: WorkerKey | None = doc_field("Isolation key for a separate worker process.", None)


class AccountLoginResult(Record):
    login_id: str = doc_field(
        "Names this sign-in in account/loginCancel and account/loginCompleted."
    )
    provider: str = doc_field("The provider.")
    user_code: str = doc_field("The code the user enters at verificationUri.")
    verification_uri: str = doc_field("The page where the user enters userCode and approves.")
    verification_uri_complete: str | None = doc_field(
        "The same page with the code filled in, to open directly; null when the provider"
        " gives none."
    )
    expires_in: int = doc_field(
        "Seconds the code stays valid; the sign-in fails (account/loginCompleted) if the"
        " user has not approved by then."
    )


class AccountLoginCancelParams(Record):
    login_id: AccountLoginId = doc_field("The account/login's loginId.")
    profile: str | None = doc_field("The account/login's profile.", None)
    worker_key: WorkerKey | None = doc_field("The account/login's workerKey.", None)


class AccountLoginCancelResult(Record):
    login_id: str = doc_field(
        "The sign-in is over and stores nothing (account/loginCompleted has told so)."
    )


class AccountLogoutParams(Record):
    provider: ProviderSlug = doc_field("The provider, as model/list names it.")
    profile: str | None = doc_field("Profile name; null or absent means default.", None)
    worker_key: WorkerKey | None = doc_field("Isolation key for a separate worker process.", None)


class AccountLogoutResult(Record):
    provider: str = doc_field("The provider.")
    signed_out: bool = doc_field(
        "True: the profile's sign-in to it was removed; false: it had none to remove."
    )


class AccountLoginCompletedNotification(Record):
    profile: str = doc_field("The profile signed in.")
    worker_key: str | None = doc_field("The worker's workerKey; null for the profile's own.")
    login_id: str = doc_field("The account/login's loginId.")
    provider: str = doc_field("The provider.")
    ok: bool = doc_field(
        "True: the profile is signed in (its auth.json holds the tokens); the next agent"
        " built for the provider uses them."
    )
    error: str | None = doc_field(
        "Why it failed (the user declined, the code expired, the provider refused, it was"
        " cancelled, a newer account/login replaced it); nothing was stored."
    )


class AccountChangedNotification(Record):
    profile: str = doc_field(
        "The profile whose sign-ins or stored credentials changed: model/list tells which"
        " providers it is signed in to now."
    )


class WorkerAccountLoginEndedNotification(Record):
    login_id: str = doc_field("The account/login's loginId.")
    provider: str = doc_field("The provider.")
    error: str | None = doc_field("Why it failed; null when it succeeded.")
