"""hermes' stream wrapper is replaced, in each module that holds it, by one that
leaves ``sys.stdout`` and ``sys.stderr`` as they are."""

from __future__ import annotations

import os
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


def test_a_module_kept_cannot_replace_the_streams_and_sees_the_real_sys_otherwise() -> None:
    module = SimpleNamespace(sys=sys)
    before = sys.stdout, sys.stderr

    assert steady_stdio.keep(module)
    with open(os.devnull, "w") as devnull:  # as hermes' execute_code does
        real = module.sys.stdout, module.sys.stderr
        module.sys.stdout = devnull
        module.sys.stderr = devnull
        assert (sys.stdout, sys.stderr) == before == (module.sys.stdout, module.sys.stderr)
        module.sys.stdout, module.sys.stderr = real
    assert (sys.stdout, sys.stderr) == before
    assert module.sys.executable == sys.executable and module.sys.modules is sys.modules
    module.sys.hermes_stdio_probe = 1  # anything else is set on the real sys
    assert sys.hermes_stdio_probe == 1
    del sys.hermes_stdio_probe


def test_keeping_again_adds_no_layer_and_a_module_without_sys_is_left_alone() -> None:
    module = SimpleNamespace(sys=sys)
    steady_stdio.keep(module)
    kept = module.sys

    assert steady_stdio.keep(module)
    assert module.sys is kept
    assert not steady_stdio.keep(SimpleNamespace())
