"""Signing the profile in to a model provider's account (``account/login``) by the
OAuth device flow (RFC 8628), as ``hermes auth add`` and hermes' web dashboard do.

The host shows the user a code and a page to enter it at (or opens the page with
the code filled in); the worker asks the provider every few seconds whether the
user has approved, then stores the tokens in the profile's ``auth.json`` as
hermes does. Nothing listens on a socket, and the browser may be on any device.

Contract: ``AccountLogins(flows, ended)``, ``flows`` mapping a provider's slug to
its ``DeviceFlow`` (hermes': ``HermesNous``), ``ended(login_id, provider,
error)`` told once as each login that gave its id ends; ``providers`` the slugs.
- ``start(provider, answer)`` calls ``answer`` with the ``AccountLoginResult``
  once the provider gave a code (waited for at most ``CODE_WAIT_S``); the
  login's end is told after ``answer`` returned. ``invalid_params`` naming
  ``params.provider`` for a provider without a flow here;
  ``account_login_failed`` (``data.provider``, why) when the provider could not
  be asked or gave no code. A login of a provider one is under way for
  replaces that one (which ends: failed).
- ``cancel(login_id)`` ends one under way at once (failed: cancelled);
  ``unknown_account_login`` (``data.loginId``) for an id not under way.
- A login ends when the tokens are stored, or failed: the user declined, the
  code expired, the provider failed, it was cancelled or replaced. One that
  ended stores nothing after, whatever the provider answers later, and stops
  asking it within a poll.
"""

from __future__ import annotations

import contextvars
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..protocol.accounts import AccountLoginResult
from ..transport.log import log
from ..wire import ErrorType, RpcError
from .sign_in_table import SignInTable

CODE_WAIT_S = 30.0  # the provider's device-code request; hermes' own times out at 15 s
CANCELLED = "cancelled"
REPLACED = "a newer account/login of this provider replaced it"


class Stopped(Exception):
    """The login ended on this side: its flow stops asking the provider."""


@dataclass(frozen=True)
class DeviceCode:
    user_code: str
    verification_uri: str
    verification_uri_complete: str | None
    expires_in: int


class DeviceFlow(Protocol):
    def run(self, shown: Callable[[DeviceCode], None], stop: threading.Event) -> Any:
        """Ask for a code, call ``shown`` with it, wait for the user's approval; the
        provider's answer to store. Raises why it failed, or ``Stopped`` once
        ``stop`` is set."""
        ...

    def save(self, state: Any) -> None:
        """Store ``run``'s answer in the profile."""
        ...


@dataclass
class _Login:
    provider: str
    stop: threading.Event = field(default_factory=threading.Event)
    shown: threading.Event = field(default_factory=threading.Event)
    code: DeviceCode | None = None
    answered: bool = False  # its account/login's answer went to the host: its end is told
    ended: bool = False
    error: str | None = None


class AccountLogins(SignInTable[_Login]):
    def __init__(
        self, flows: dict[str, DeviceFlow], ended: Callable[[str, str, str | None], None]
    ) -> None:
        super().__init__(ended)
        self._flows = flows
        self.providers = frozenset(flows)

    def start(self, provider: str, answer: Callable[[AccountLoginResult], None]) -> None:
        flow = self._flows.get(provider)
        if flow is None:
            why = f"account/login cannot sign in to {provider!r} (it can: {sorted(self._flows)})"
            raise RpcError(ErrorType.INVALID_PARAMS, why, field="params.provider")
        with self._lock:
            old = [i for i, one in self._by_id.items() if one.provider == provider]
        for login_id in old:
            self._end(login_id, REPLACED)
        login_id = "acct_" + secrets.token_hex(8)
        login = _Login(provider)
        with self._lock:
            self._by_id[login_id] = login
        worker = threading.Thread(
            target=self._run, args=(login_id, login, flow), name=f"account-login-{provider}"
        )
        worker.daemon = True  # a worker that stops does not wait for the user
        worker.start()
        login.shown.wait(CODE_WAIT_S)
        code = login.code
        if code is None:
            self._end(login_id, "the provider gave no code in time")
            with self._lock:
                self._by_id.pop(login_id, None)
            raise RpcError(ErrorType.ACCOUNT_LOGIN_FAILED, str(login.error), provider=provider)
        answer(
            AccountLoginResult(
                login_id,
                provider,
                code.user_code,
                code.verification_uri,
                code.verification_uri_complete,
                code.expires_in,
            )
        )
        self._answered(login_id, login, provider)

    def cancel(self, login_id: str) -> None:
        if not self._end(login_id, CANCELLED):
            why = f"no account sign-in {login_id!r} is under way"
            raise RpcError(ErrorType.UNKNOWN_ACCOUNT_LOGIN, why, loginId=login_id)

    def _run(self, login_id: str, login: _Login, flow: DeviceFlow) -> None:
        def shown(code: DeviceCode) -> None:
            login.code = code
            login.shown.set()

        try:
            state = flow.run(shown, login.stop)
        except Stopped:
            return  # whoever stopped it ended it
        except Exception as exc:  # hermes' reason: declined, expired, refused
            self._end(login_id, str(exc) or type(exc).__name__)
            return
        finally:
            login.shown.set()

        def store() -> str | None:
            try:
                flow.save(state)
            except Exception as exc:
                log(f"account/login {login.provider}: storing the tokens failed: {exc!r}")
                return f"storing the tokens failed: {exc}"
            return None

        self._end(login_id, None, store)

    def _end(
        self, login_id: str, error: str | None, last: Callable[[], str | None] | None = None
    ) -> bool:
        """End a login under way (``last`` run first, under the lock: a cancel either
        came before it or finds the login over); False if none was under way."""
        with self._lock:
            login = self._by_id.get(login_id)
            if login is None or login.ended:
                return False
            if last is not None:
                error = last()
            login.stop.set()
            told = self._finish(login_id, login, error)
        if told:
            self._ended(login_id, login.provider, error)
        return True


@dataclass(frozen=True)
class _Hooks:
    shown: Callable[[DeviceCode], None]
    stop: threading.Event


# The login whose flow runs in this context: what hermes' wrapped steps tell.
_HOOKS: contextvars.ContextVar[_Hooks | None] = contextvars.ContextVar(
    "account_login", default=None
)


@contextmanager
def hooked(shown: Callable[[DeviceCode], None], stop: threading.Event) -> Iterator[None]:
    token = _HOOKS.set(_Hooks(shown, stop))
    try:
        yield
    finally:
        _HOOKS.reset(token)


class _StoppableClient:
    """An httpx client whose next request raises ``Stopped`` once the login ended."""

    def __init__(self, client: Any, stop: threading.Event) -> None:
        self._client, self._stop = client, stop

    def post(self, *args: Any, **kwargs: Any) -> Any:
        if self._stop.is_set():
            raise Stopped()
        return self._client.post(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def telling(request: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Wrap hermes' device-code request (RFC 8628's answer) to show the code it got."""

    def request_and_tell(*args: Any, **kwargs: Any) -> dict[str, Any]:
        data = request(*args, **kwargs)
        hooks = _HOOKS.get()
        if hooks is not None:
            complete = data.get("verification_uri_complete")
            hooks.shown(
                DeviceCode(
                    str(data["user_code"]),
                    str(data["verification_uri"]),
                    str(complete) if complete else None,
                    int(data["expires_in"]),
                )
            )
        return data

    request_and_tell.__wrapped__ = request  # type: ignore[attr-defined]
    return request_and_tell


def stoppable(poll: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap hermes' device-code poll (its ``client=``, a request a second) so it ends
    at its next request once the login ended."""

    def poll_until_stopped(*args: Any, client: Any, **kwargs: Any) -> Any:
        hooks = _HOOKS.get()
        if hooks is not None:
            client = _StoppableClient(client, hooks.stop)
        return poll(*args, client=client, **kwargs)

    poll_until_stopped.__wrapped__ = poll  # type: ignore[attr-defined]
    return poll_until_stopped


class HermesNous:
    """Nous Portal through hermes: its device flow (``_nous_device_code_login``: the
    portal of ``HERMES_PORTAL_BASE_URL``, else hermes' own, and the agent key
    minted from the tokens) and its store (``persist_nous_credentials``)."""

    _wrapping = threading.Lock()  # a replaced login's thread may still be starting

    def run(self, shown: Callable[[DeviceCode], None], stop: threading.Event) -> Any:
        from hermes_cli import auth

        with self._wrapping:
            if not hasattr(auth._request_device_code, "__wrapped__"):
                auth._request_device_code = telling(auth._request_device_code)
                auth._poll_for_token = stoppable(auth._poll_for_token)
        with hooked(shown, stop):
            return auth._nous_device_code_login(open_browser=False)

    def save(self, state: Any) -> None:
        from hermes_cli import auth

        auth.persist_nous_credentials(state)
        auth.invalidate_nous_auth_status_cache()
