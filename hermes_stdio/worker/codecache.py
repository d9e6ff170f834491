"""Code objects a template reads ahead for the modules each worker imports itself.

Contract:
- ``load_ahead(paths)`` (in the template) returns, for each source file that
  exists and is not imported already, its size and mtime and the code object
  Python's own loader gives for it (from its ``.pyc`` when that is current,
  else compiled; nothing is written). Unmarshalling is what importing a
  module costs once its file is cached, and forked workers share the result.
- ``use(codes)`` (in a forked worker, around its own imports) makes
  ``SourceFileLoader.get_code`` return a file's code from ``codes``, once,
  when the file's size and mtime are still those read ahead; any other file,
  or a changed one, loads as usual. On leaving, the loader is as it was and
  what was not used is dropped.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from importlib.machinery import SourceFileLoader
from types import CodeType
from typing import Any

Stamp = tuple[int, int]  # (st_mtime_ns, st_size)
Codes = dict[str, tuple[Stamp, CodeType]]


def _stamp(path: str) -> Stamp:
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


def load_ahead(paths: Iterable[str]) -> Codes:
    loaded = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    codes: Codes = {}
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # the template writes nothing
    try:
        for path in paths:
            if path in loaded or not path.endswith(".py"):
                continue
            try:
                stamp = _stamp(path)
                code = SourceFileLoader("_ahead", path).get_code("_ahead")
            except (OSError, ImportError, SyntaxError, ValueError):
                continue  # a missing or broken file loads (or fails) as usual
            if code is not None:
                codes[path] = (stamp, code)
    finally:
        sys.dont_write_bytecode = dont_write
    return codes


@contextlib.contextmanager
def use(codes: Codes) -> Iterator[None]:
    own = "get_code" in SourceFileLoader.__dict__
    original = SourceFileLoader.get_code

    def get_code(self: Any, fullname: str) -> CodeType | None:
        entry = codes.pop(self.path, None)
        if entry is not None:
            with contextlib.suppress(OSError):
                if _stamp(self.path) == entry[0]:
                    return entry[1]
        return original(self, fullname)

    SourceFileLoader.get_code = get_code  # type: ignore[method-assign]  # ours: undone below
    try:
        yield
    finally:
        if own:
            SourceFileLoader.get_code = original  # type: ignore[method-assign]
        else:
            del SourceFileLoader.get_code  # back to SourceLoader's
        codes.clear()
