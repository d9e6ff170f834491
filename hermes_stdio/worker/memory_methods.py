"""``memory/list``, ``memory/add``, ``memory/replace``, ``memory/remove``: what
the profile's agents remember, through ``memories``.

Contract (a mixin of ``WorkerService``, which provides ``adapter``, ``profile``
and ``answer_off_reader``): each request is answered off the reader (hermes'
store takes a file lock). An entry no entry of the store equals is
``unknown_memory_entry`` (``data.target``); what hermes refuses is
``invalid_params`` with its reason; a store's file that is not a regular file is
``profile_unreadable`` (``data.file``); an agent that keeps no memory (the
synthetic one) is ``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import memory as mm
from ..protocol import types as t
from ..protocol.record import Record
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter
from .memories import Memories, MemoryRefused, UnknownEntry
from .parts import answer_through, unreadable


class MemoryMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]
    profile: str

    def _memory(
        self, req: Request, target: str | None, act: Callable[[Memories], Record]
    ) -> object:
        def refusal(exc: Exception) -> RpcError | None:
            if isinstance(exc, UnknownEntry):
                return RpcError(
                    ErrorType.UNKNOWN_MEMORY_ENTRY,
                    "no entry of the store is that text",
                    target=target,
                )
            if isinstance(exc, MemoryRefused):
                return RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params")
            return unreadable(self.profile, exc)

        return answer_through(
            self.answer_off_reader, req, "memory", self.adapter.memories, act, refusal
        )

    def _h_memory_list(self, req: Request, p: t.WorkerTarget) -> object:
        return self._memory(req, None, lambda m: mm.MemoryListResult(*m.listed()))

    def _h_memory_add(self, req: Request, p: mm.MemoryAddParams) -> object:
        return self._memory(
            req, p.target, lambda m: mm.MemoryStoreResult(m.add(p.target, p.content))
        )

    def _h_memory_replace(self, req: Request, p: mm.MemoryReplaceParams) -> object:
        return self._memory(
            req,
            p.target,
            lambda m: mm.MemoryStoreResult(m.replace(p.target, p.entry, p.content)),
        )

    def _h_memory_remove(self, req: Request, p: mm.MemoryRemoveParams) -> object:
        return self._memory(
            req, p.target, lambda m: mm.MemoryStoreResult(m.remove(p.target, p.entry))
        )
