"""Which worker request answers which host request, so a host's cancel can follow it.

Contract: a ``Forward(req)`` is made for each host request sent on to a worker.
``Forwards.sent(forward, peer, worker_id)`` records where it went; ``done(forward)``
forgets it once the worker answered, which may come first (a fast answer can
beat ``sent``: it is then never recorded); ``cancel(req)`` sends that worker a
``$/cancelRequest`` for it if it is still unanswered. Host ids may be reused
once answered, so entries are matched by the request object, not its id alone.
"""

from __future__ import annotations

import threading
from typing import Any

from ..transport import Peer
from ..wire import Request, RequestId


class Forward:
    __slots__ = ("answered", "peer", "req", "worker_id")

    def __init__(self, req: Request) -> None:
        self.req = req
        self.peer: Peer | None = None
        self.worker_id: Any = None
        self.answered = False


class Forwards:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[RequestId, Forward] = {}

    def sent(self, forward: Forward, peer: Peer, worker_id: Any) -> None:
        with self._lock:
            forward.peer, forward.worker_id = peer, worker_id
            if not forward.answered:
                self._by_id[forward.req.id] = forward

    def done(self, forward: Forward) -> None:
        with self._lock:
            forward.answered = True
            if self._by_id.get(forward.req.id) is forward:
                del self._by_id[forward.req.id]

    def cancel(self, req: Request) -> bool:
        with self._lock:
            forward = self._by_id.get(req.id)
            if forward is None or forward.req is not req:
                return False
            del self._by_id[req.id]
        assert forward.peer is not None
        return forward.peer.cancel_remote(forward.worker_id)
