"""release_free_memory trims the heap where glibc is present and is safe to repeat."""

from __future__ import annotations

import platform

import pytest

from hermes_stdio.worker.memory import release_free_memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_release_free_memory_trims_on_glibc_and_can_be_called_again() -> None:
    assert release_free_memory() is True
    assert release_free_memory() is True
