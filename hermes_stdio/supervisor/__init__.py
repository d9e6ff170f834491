"""The supervisor: lifecycle with the host, worker processes and routing.

Never imports hermes-agent.
"""

from .server import Supervisor

__all__ = ["Supervisor"]
