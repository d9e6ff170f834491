"""I/O adapters: the only code that touches file descriptors and processes."""

from .peer import Peer, PeerHandler
from .process import relay_stderr, spawn_child, stop_child
from .stdio import take_over_stdio
from .timers import TIMERS, TimerHandle
from .writer import FrameWriter

__all__ = [
    "TIMERS",
    "FrameWriter",
    "Peer",
    "PeerHandler",
    "TimerHandle",
    "relay_stderr",
    "spawn_child",
    "stop_child",
    "take_over_stdio",
]
