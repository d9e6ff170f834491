"""``account/login``, ``account/loginCancel``, ``account/logout``: the profile's
accounts with model providers, through ``adapter.accounts()``.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``, ``queue`` and ``peer``): each is answered off the reader (a
login waits for the provider's code; a logout takes hermes' auth-store lock). A
login's end is told by ``TaskMethods._account_login_ended``
(``worker/accountLoginEnded``), never before its answer. The
errors are ``account_login``'s; an agent without accounts (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import accounts as ac
from ..protocol.record import Record
from ..transport import Peer
from ..wire import Request
from .contract import AgentAdapter
from .parts import request_error


class AccountMethods:
    adapter: AgentAdapter
    peer: Peer | None
    answer_off_reader: Callable[..., object]
    queue: Callable[..., object]
    _respond_with: Callable[[Request], Callable[[Record], None]]

    def _h_account_login(self, req: Request, p: ac.AccountLoginParams) -> object:
        def start() -> None:
            assert self.peer is not None
            try:
                self.adapter.accounts().login(p.provider, self._respond_with(req))
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))

        return self.queue(req, "account-login", start, slow=True)

    def _h_account_loginCancel(self, req: Request, p: ac.AccountLoginCancelParams) -> object:
        def cancel() -> ac.AccountLoginCancelResult:
            self.adapter.accounts().cancel(p.login_id)
            return ac.AccountLoginCancelResult(p.login_id)

        return self.answer_off_reader(req, "account-login", cancel)

    def _h_account_logout(self, req: Request, p: ac.AccountLogoutParams) -> object:
        def logout() -> ac.AccountLogoutResult:
            return ac.AccountLogoutResult(p.provider, self.adapter.accounts().logout(p.provider))

        return self.answer_off_reader(req, "account-login", logout)
