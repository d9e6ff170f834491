"""Fixtures the FrameWriter tests share: a real os.pipe."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from transport_writer_helpers import Pipe


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    p = Pipe()
    yield p
    p.close_all()
