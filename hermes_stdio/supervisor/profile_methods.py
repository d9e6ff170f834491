"""``profile/create``, ``profile/rename``, ``profile/delete``,
``profile/setDescription``, ``profile/setActive``, ``profile/export`` and
``profile/import``: the supervisor's side.

Contract (a mixin of ``Supervisor``, which provides ``home``, ``pool`` (whose
Python and environment the child runs with), ``routes``, ``closing``,
``_lock``, ``_reply``, ``_in_thread``, ``_key``, ``_refuse_closing`` and
``_profile_listing``): each checks its params on the host's reader, then does
its work on a handler thread, never on the reader; create, rename, delete,
export and import run hermes' own code in a child process (``profile_admin``).
- ``profile/create``: ``name`` a valid name (``invalid_profile``) other than
  ``default`` (``profile_exists``) and not a rename's new name now,
  ``cloneFrom`` an existing profile, ``noSkills`` only without it
  (``invalid_params``). The answer is the new profile as ``profile/list``
  gives it.
- ``profile/delete``: ``name`` an existing profile other than ``default``
  (``invalid_profile``). The profile is marked as closing, so every
  request that would start one of its workers fails with ``unknown_profile``
  from then on (``RoutedMethods._key``); each of its workers is
  stopped (``worker/exited`` reason ``deleted``; its runs end as for any
  stop), hermes deletes it, and any worker a request started meanwhile is
  stopped too; its sessions are retired (``Routes.retire_profile``); then the
  mark goes. The answer is the directory removed.
- ``profile/rename``: ``name`` as for delete, ``newName`` a valid name not
  taken (``profile_exists``, ``default`` included). Both names are marked,
  its workers stopped as for delete (reason ``renamed``), hermes renames it,
  and every route to its workers (its sessions, its finished runs) then
  points at the new name's: its sessions go on there. The answer is the
  profile under its new name.
- ``profile/setDescription``: ``name`` any existing profile; its
  ``profile.yaml`` gets the description (stripped; null clears it) and
  ``description_auto: false`` as hermes' dashboard writes them (hermes'
  auto-describer then leaves it), its other keys kept (a file hermes could
  not read starts afresh, as hermes' own write does), replaced at once under
  the directory's flock, on a handler thread; no worker is started. The
  answer is the profile as ``profile/list`` gives it.
- ``profile/setActive``: ``name`` any existing profile; the Hermes home's
  ``active_profile`` is written as ``hermes profile use`` writes it (removed
  for ``default``), replaced at once under the home's flock, on a handler
  thread. The answer is the profile as ``profile/list`` gives it.
- ``profile/export``: ``name`` any existing profile not being renamed or
  deleted, ``path`` an absolute path ending in ``.tar.gz`` whose directory
  exists (``invalid_params`` naming ``params.path``); its workers go on. The
  answer is the archive's path.
- ``profile/import``: ``path`` an absolute path to a regular file (never a
  FIFO, which would hold the child), ``name`` by ``profile/create``'s rules
  when given. The answer is the new profile as ``profile/list`` gives it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import encode
from ..protocol import profiles as pf
from ..protocol import workers as pw
from ..transport.file_replace import flocked, replace_file
from ..transport.profile_files import load_config
from ..wire import ErrorType, Request, RpcError
from .profile_admin import (
    delete_profile,
    export_profile,
    import_profile,
    make_profile,
    rename_profile,
)
from .profiles import ACTIVE_FILE, DEFAULT_PROFILE, check_name, profile_home
from .routes import Routes, SlotKey
from .routing import spawn_thread
from .workers import WorkerPool


class ProfileMethods:
    home: Path
    pool: WorkerPool
    routes: Routes
    closing: dict[str, str]
    _lock: threading.Lock
    _reply: Callable[..., bool]
    _key: Callable[[str | None, str | None], SlotKey]
    _refuse_closing: Callable[[str], None]
    _profile_listing: Callable[[], pf.ProfileListResult]
    _in_thread: Callable[[Request, Callable[[], Any]], None]

    def _h_profile_create(self, req: Request, p: pf.ProfileCreateParams) -> None:
        name = self._new_name(p.name)
        self._refuse_closing(name)  # a rename's new name, not made yet
        source = None if p.clone_from is None else self._key(p.clone_from, None)[0]
        if p.no_skills and source is not None:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                "noSkills is for a fresh profile: a clone copies its source's skills",
                field="params.noSkills",
            )

        def create() -> None:
            make_profile(*self._child(), name, source, p.no_skills, p.description)
            info = next(i for i in self._profile_listing().profiles if i.name == name)
            self._reply(req, encode(pf.ProfileCreateResult(info)))

        self._off_reader(req, create)

    def _h_profile_delete(self, req: Request, p: pf.ProfileDeleteParams) -> None:
        name = self._old_name(p.name)

        def delete() -> Any:
            self._stop_workers(name, "deleted")
            gone = delete_profile(*self._child(), name)
            self._stop_workers(name, "deleted")  # one a request started meanwhile
            self.routes.retire_profile(name)  # a profile made under its name has none of them
            return encode(pf.ProfileDeleteResult(str(gone)))

        self._closing(req, {name: "is being deleted"}, delete)

    def _h_profile_rename(self, req: Request, p: pf.ProfileRenameParams) -> None:
        name = self._old_name(p.name)
        new = self._new_name(p.new_name)
        if os.path.lexists(self.home / "profiles" / new):  # a dangling link too
            raise RpcError(ErrorType.PROFILE_EXISTS, f"profile {new!r} exists", profile=new)

        def rename() -> Any:
            self._stop_workers(name, "renamed")
            rename_profile(*self._child(), name, new)
            self._stop_workers(name, "renamed")
            self.routes.rename_profile(name, new)  # its sessions moved with it
            info = next(i for i in self._profile_listing().profiles if i.name == new)
            return encode(pf.ProfileRenameResult(info))

        self._closing(req, {name: "is being renamed", new: "is a rename's new name"}, rename)

    def _h_profile_setDescription(self, req: Request, p: pf.ProfileSetDescriptionParams) -> None:
        name = self._key(p.name, None)[0]
        home = profile_home(self.home, name)

        def describe() -> pf.ProfileSetDescriptionResult:
            import yaml  # here: the supervisor answers initialize without it

            real = Path(os.path.realpath(home / "profile.yaml"))
            with flocked(real.parent):
                meta = dict(load_config(home, "profile.yaml"))  # the cached one is shared
                meta["description"] = (p.description or "").strip()
                meta["description_auto"] = False  # the user's: hermes' describer keeps off it
                text = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
                replace_file(real, text.encode("utf-8"), 0o644)
            info = next(i for i in self._profile_listing().profiles if i.name == name)
            return pf.ProfileSetDescriptionResult(info)

        self._in_thread(req, describe)

    def _h_profile_setActive(self, req: Request, p: pf.ProfileSetActiveParams) -> None:
        name = self._key(p.name, None)[0]

        def activate() -> pf.ProfileSetActiveResult:
            path = self.home / ACTIVE_FILE
            with flocked(self.home):
                if name == DEFAULT_PROFILE:  # as hermes: no file is the default
                    path.unlink(missing_ok=True)
                else:
                    replace_file(path, f"{name}\n".encode(), 0o644)
            info = next(i for i in self._profile_listing().profiles if i.name == name)
            return pf.ProfileSetActiveResult(info)

        self._in_thread(req, activate)

    def _h_profile_export(self, req: Request, p: pf.ProfileExportParams) -> None:
        name = self._key(p.name, None)[0]  # unknown, escaping, or being renamed or deleted
        if not (os.path.isabs(p.path) and p.path.endswith(".tar.gz")):
            raise _bad_path("an absolute path ending in .tar.gz")
        if not os.path.isdir(os.path.dirname(p.path)) or os.path.isdir(p.path):
            raise _bad_path("a file in an existing directory")

        def export() -> pf.ProfileExportResult:
            return pf.ProfileExportResult(str(export_profile(*self._child(), name, p.path)))

        self._in_thread(req, export)

    def _h_profile_import(self, req: Request, p: pf.ProfileImportParams) -> None:
        name = None if p.name is None else self._new_name(p.name)
        if name is not None:
            self._refuse_closing(name)  # a rename's new name, not made yet
        if not (os.path.isabs(p.path) and os.path.isfile(p.path)):
            raise _bad_path("an absolute path to an archive")

        def unpack() -> pf.ProfileImportResult:
            made = import_profile(*self._child(), p.path, name).name
            info = next(i for i in self._profile_listing().profiles if i.name == made)
            return pf.ProfileImportResult(info)

        self._in_thread(req, unpack)

    def _old_name(self, given: str) -> str:
        """An existing profile that may be renamed or deleted: never default."""
        name = check_name(given)
        if name == DEFAULT_PROFILE:
            raise RpcError(
                ErrorType.INVALID_PROFILE, "default is the Hermes home itself", profile=name
            )
        self._key(name, None)  # unknown_profile, one that escapes, or one closing
        return name

    def _new_name(self, given: str) -> str:
        name = check_name(given)
        if name == DEFAULT_PROFILE:
            raise RpcError(ErrorType.PROFILE_EXISTS, "default is the Hermes home", profile=name)
        return name

    def _closing(self, req: Request, marks: dict[str, str], job: Callable[[], Any]) -> None:
        """Run ``job`` off the reader with ``marks`` set meanwhile: no worker of those
        profiles may start, nor a second delete or rename of them begin."""
        with self._lock:
            for name in marks:
                self._refuse_closing(name)
            self.closing.update(marks)

        def unmark() -> None:
            with self._lock:
                for name in marks:
                    self.closing.pop(name, None)

        def run() -> None:
            try:
                result = job()
            finally:
                unmark()
            self._reply(req, result)

        try:
            self._off_reader(req, run)
        except BaseException:  # no thread: the profiles must not stay marked for good
            unmark()
            raise

    def _child(self) -> tuple[str, Path, dict[str, str]]:
        """What a profile_admin child runs with: the workers' Python, the home, the env."""
        return self.pool.agent_python, self.home, self.pool.base_env

    def _stop_workers(self, name: str, reason: pw.StopReason) -> None:
        """Stop each of the profile's workers, and drop its slots: supervisor/status
        lists no worker of a profile that is gone (a request for one of its sessions
        makes a slot again, which its answer, unknown_profile, leaves exited)."""
        for slot in self.pool.slots():
            if slot.profile == name:
                self.pool.stop(slot, reason=reason)
                self.pool.forget(slot, lambda _key: False, any_key=True)

    def _off_reader(self, req: Request, job: Callable[[], Any]) -> None:
        def run() -> None:
            try:
                job()
            except Exception as exc:
                self._reply(req, error=exc)

        spawn_thread(run)  # a child process, a second or so: never on the host's reader


def _bad_path(wanted: str) -> RpcError:
    return RpcError(ErrorType.INVALID_PARAMS, f"path must be {wanted}", field="params.path")
