"""A profile's model credentials are its own: hermes' reach into other profiles' is cut.

hermes 0.19, in a named profile, falls back to the root (default) profile's
``auth.json`` for a provider the profile holds nothing for: its credential
pool and its provider sign-ins (``hermes_cli.auth._global_auth_file_path``),
and writes rotated tokens back there. It also keeps one Nous Portal sign-in
for all profiles in ``<root>/shared/nous_auth.json``: written on each sign-in
and refresh, merged into a profile's own sign-in when fresher. Either way one
profile's agents would call models on another profile's account.

Contract: ``install()`` cuts both in this process before hermes' auth module
is first used: at once if it is already imported (a forked worker), else the
moment it is imported. Then hermes sees no root store (no fallback read, no
write-through) and never reads, writes or clears the shared store. The
profile's own ``auth.json`` is hermes' as before; the default profile's is the
root's, since root is its home.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

MODULE = "hermes_cli.auth"


def _no_root_store() -> None:
    return None


def _no_shared_state() -> None:
    return None


def _keep_to_itself(*_args: Any, **_kwargs: Any) -> None:
    return None


def cut(module: ModuleType) -> None:
    """Cut the module's reach into other profiles' stores (again after a reload)."""
    module._global_auth_file_path = _no_root_store  # type: ignore[attr-defined]
    module._read_shared_nous_state = _no_shared_state  # type: ignore[attr-defined]
    module._write_shared_nous_state = _keep_to_itself  # type: ignore[attr-defined]
    module._clear_shared_nous_state = _keep_to_itself  # type: ignore[attr-defined]


class _CutOnLoad(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, finder: _CutOnImport) -> None:
        self._loader = loader
        self._finder = finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        cut(module)
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)

    def __getattr__(self, name: str) -> Any:  # get_source, get_code, ...: hermes' loader's
        return getattr(self._loader, name)


class _CutOnImport(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self._finding = False

    def find_spec(
        self, fullname: str, path: Any, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != MODULE or self._finding:
            return None
        self._finding = True  # the search below asks the finders, us among them
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is not None and spec.loader is not None:
            spec.loader = _CutOnLoad(spec.loader, self)
        return spec


def install() -> None:
    module = sys.modules.get(MODULE)
    if module is not None:
        cut(module)
    elif not any(isinstance(f, _CutOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _CutOnImport())
