"""Requests a worker answers through one part of its agent adapter (its cron
jobs, its config file, its environment variables, its memory).

Contract: ``answer_through(answer_off_reader, req, name, part, act, refusal)``
answers ``req`` off the reader (``queries.answer_off_reader``): ``part()`` gives
the adapter's part, or None when the agent has none (``agent_unavailable``, as
the synthetic agent has no profile); ``act(part)`` is the result; an exception
``refusal`` turns into an ``RpcError`` is answered with that error, any other
as ``internal_error``. ``unreadable(profile, exc)`` is that error for a profile's
file that is there but hermes could not use (``config_file.Unusable``):
``profile_unreadable``, naming the file. ``config_refusal(profile, exc)`` is it
or, for a change of config.yaml, ``config_conflict`` (``config_file.Conflict``,
``data.version``) or ``config_read_only`` (``config_file.ReadOnly``,
``data.keyPath``); None for any other exception.

``request_error(exc)`` is the one way a worker answers a request that failed
with ``exc``: an ``AgentUnavailable`` as ``agent_unavailable`` with its
message, an ``RpcError`` as itself, anything else as ``internal_error`` with
its traceback on stderr only (``report_error``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..protocol.record import Record
from ..transport.log import report_error
from ..wire import ErrorType, Request, RpcError
from .config_file import Conflict, ReadOnly, Unusable
from .contract import AgentUnavailable

P = TypeVar("P")


def answer_through(
    answer_off_reader: Callable[[Request, str, Callable[[], Record]], object],
    req: Request,
    name: str,
    part: Callable[[], P | None],
    act: Callable[[P], Record],
    refusal: Callable[[Exception], RpcError | None],
) -> object:
    def answer() -> Record:
        found = part()
        if found is None:
            raise AgentUnavailable(f"this agent keeps no {name}")
        try:
            return act(found)
        except Exception as exc:
            wire = refusal(exc)
            if wire is None:
                raise
            raise wire from exc

    return answer_off_reader(req, name, answer)


def unreadable(profile: str, exc: Exception) -> RpcError | None:
    if not isinstance(exc, Unusable):
        return None
    return RpcError(
        ErrorType.PROFILE_UNREADABLE,
        f"profile {profile!r}: {exc.file} {exc}",
        profile=profile,
        file=exc.file,
    )


def config_refusal(profile: str, exc: Exception) -> RpcError | None:
    if isinstance(exc, Conflict):
        return RpcError(ErrorType.CONFIG_CONFLICT, str(exc), version=exc.current)
    if isinstance(exc, ReadOnly):
        return RpcError(ErrorType.CONFIG_READ_ONLY, str(exc), keyPath=exc.key_path)
    return unreadable(profile, exc)


def request_error(exc: BaseException) -> RpcError | dict[str, Any]:
    if isinstance(exc, AgentUnavailable):
        return RpcError(ErrorType.AGENT_UNAVAILABLE, str(exc))
    return report_error(exc)
