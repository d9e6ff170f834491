"""hermes' stream wrapper is replaced, in each module that holds it, by one that
leaves ``sys.stdout`` and ``sys.stderr`` as they are."""

from __future__ import annotations

import sys
from types import SimpleNamespace

from hermes_stdio.worker import steady_stdio


def _wraps() -> None:
    raise AssertionError("hermes' own wrapper ran")


def test_each_module_holding_the_wrapper_gets_one_that_leaves_the_streams_alone() -> None:
    bootstrap = SimpleNamespace(_install_safe_stdio=_wraps)
    loop = SimpleNamespace(_install_safe_stdio=_wraps)
    unrelated = SimpleNamespace()
    before = sys.stdout, sys.stderr

    assert steady_stdio.install(bootstrap, loop, unrelated) == 2
    bootstrap._install_safe_stdio()
    loop._install_safe_stdio()

    assert (sys.stdout, sys.stderr) == before
    assert not hasattr(unrelated, "_install_safe_stdio")


def test_installing_again_replaces_nothing() -> None:
    module = SimpleNamespace(_install_safe_stdio=_wraps)
    steady_stdio.install(module)
    replacement = module._install_safe_stdio

    assert steady_stdio.install(module) == 0
    assert module._install_safe_stdio is replacement
