"""``account/login``, ``account/loginCancel``, ``account/logout``: the profile's
accounts with model providers, through ``adapter.accounts()``.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): each is answered off the reader (a login waits for the
provider's code; a logout takes hermes' auth-store lock). A login's end is told
by ``TaskMethods._account_login_ended`` (``worker/accountLoginEnded``). The
errors are ``account_login``'s; an agent without accounts (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import accounts as ac
from ..wire import Request
from .contract import AgentAdapter


class AccountMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]

    def _h_account_login(self, req: Request, p: ac.AccountLoginParams) -> object:
        def start() -> ac.AccountLoginResult:
            return self.adapter.accounts().login(p.provider)

        return self.answer_off_reader(req, "account-login", start, slow=True)

    def _h_account_loginCancel(self, req: Request, p: ac.AccountLoginCancelParams) -> object:
        def cancel() -> ac.AccountLoginCancelResult:
            self.adapter.accounts().cancel(p.login_id)
            return ac.AccountLoginCancelResult(p.login_id)

        return self.answer_off_reader(req, "account-login", cancel)

    def _h_account_logout(self, req: Request, p: ac.AccountLogoutParams) -> object:
        def logout() -> ac.AccountLogoutResult:
            return ac.AccountLogoutResult(p.provider, self.adapter.accounts().logout(p.provider))

        return self.answer_off_reader(req, "account-login", logout)
