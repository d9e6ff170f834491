"""``usage/summary``: what the profile's sessions used over a period, through ``insights``.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): ``days`` outside 1..3650 or ``utcOffsetMinutes``
outside -1440..1440 is ``invalid_params`` naming the field; the answer is made
off the reader as a slow job (hermes may look prices up on the network); an
agent that keeps no session database (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import insights as ins
from ..wire import ErrorType, Request, RpcError
from .contract import AgentAdapter, AgentUnavailable


class UsageMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]

    def _h_usage_summary(self, req: Request, p: ins.UsageSummaryParams) -> object:
        for name, value, most in (
            ("days", p.days, ins.MAX_DAYS),
            ("utcOffsetMinutes", p.utc_offset_minutes, ins.MAX_UTC_OFFSET_MINUTES),
        ):
            low = 1 if name == "days" else -most
            if not low <= value <= most:
                raise RpcError(
                    ErrorType.INVALID_PARAMS,
                    f"{name} must be between {low} and {most}",
                    field=f"params.{name}",
                )

        def summary() -> ins.UsageSummaryResult:
            found = self.adapter.usage_summary(p.days, p.source, p.utc_offset_minutes)
            if found is None:
                raise AgentUnavailable("this agent keeps no session database")
            return found

        return self.answer_off_reader(req, "usage", summary, True)
