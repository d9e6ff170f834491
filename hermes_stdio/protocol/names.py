"""The names a host gives things: session ids and worker keys.

Contract: every params field that names a session (``sessionId``,
``newSessionId``) is a ``SessionId``, and every ``workerKey`` a ``WorkerKey``.
Decoding refuses an empty or over-long name, or one holding a control
character, as ``invalid_params`` naming the field; the schema says the same
(``minLength``, ``maxLength``, ``pattern``). Results and notifications carry
the names as plain strings.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name

SessionId = Annotated[str, Name(256)]
WorkerKey = Annotated[str, Name(128)]
