"""The protocol, defined once: types, the method table and the JSON Schema export."""

from . import asks, inputs, names, processes, profiles, stored, toolbox, types, usage, workers
from .methods import HOST_METHODS, WORKER_METHODS, Method
from .model import camel, decode, encode
from .notifications import (
    RELAYED_NOTIFICATIONS,
    RUN_NOTIFICATIONS,
    SERVER_NOTIFICATIONS,
    WORKER_NOTIFICATIONS,
    NotificationSpec,
)
from .types import PROTOCOL_VERSION

__all__ = [
    "HOST_METHODS",
    "PROTOCOL_VERSION",
    "RELAYED_NOTIFICATIONS",
    "RUN_NOTIFICATIONS",
    "SERVER_NOTIFICATIONS",
    "WORKER_METHODS",
    "WORKER_NOTIFICATIONS",
    "Method",
    "NotificationSpec",
    "asks",
    "camel",
    "decode",
    "encode",
    "inputs",
    "names",
    "processes",
    "profiles",
    "stored",
    "toolbox",
    "types",
    "usage",
    "workers",
]
