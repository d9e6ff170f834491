"""The profile's accounts with model providers, for ``adapter.HermesAdapter``: signed
in to (``account_login``) and out of through hermes' own functions.

Contract: ``HermesAccounts`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent and so loading the profile's ``.env``) and
implements ``contract.AgentAdapter``'s ``watch_account_logins`` and
``accounts()``, an ``Accounts``: ``providers`` (those ``login`` signs in to),
``login(provider, answer)`` and ``cancel(login_id)``
(``account_login.AccountLogins``),
``logout(provider)``: hermes' ``hermes logout --provider`` (the sign-in and the
pooled credentials its ``auth.json`` keeps for the provider; the ``.env`` keys
stay), True if there was any.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..protocol.accounts import AccountLoginResult
from .account_login import AccountLogins, HermesNous

LoginEnded = Callable[[str, str, str | None], None]


class Accounts:
    def __init__(self, logins: AccountLogins, ready: Callable[[], Any]) -> None:
        self._logins, self._ready = logins, ready
        self.providers = logins.providers

    def login(self, provider: str, answer: Callable[[AccountLoginResult], None]) -> None:
        if provider in self.providers:
            self._ready()  # the profile's .env may name the provider's portal
        self._logins.start(provider, answer)

    def cancel(self, login_id: str) -> None:
        self._logins.cancel(login_id)

    def logout(self, provider: str) -> bool:
        self._ready()
        from hermes_cli import auth

        cleared = auth.clear_provider_auth(provider)
        if provider == "nous":
            auth.invalidate_nous_auth_status_cache()  # else "signed in" for 15 s more
        return bool(cleared)


class HermesAccounts:
    _modules: Callable[[], Any]
    _account_login_ended: LoginEnded | None = None
    _accounts: Accounts | None = None
    _accounts_lock = threading.Lock()

    def watch_account_logins(self, deliver: LoginEnded) -> None:
        self._account_login_ended = deliver

    def accounts(self) -> Accounts:
        with self._accounts_lock:
            if self._accounts is None:

                def ended(login_id: str, provider: str, error: str | None) -> None:
                    if self._account_login_ended is not None:
                        self._account_login_ended(login_id, provider, error)

                logins = AccountLogins({"nous": HermesNous()}, ended)
                self._accounts = Accounts(logins, self._modules)
            return self._accounts
