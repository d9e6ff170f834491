"""``profile/create`` and ``profile/delete``: the supervisor's side.

Contract (a mixin of ``Supervisor``, which provides ``home``, ``pool`` (whose
Python and environment the child runs with), ``deleting``, ``_lock``,
``_reply``, ``_key``, ``_refuse_deleted`` and ``_profile_listing``): both
check their params on the host's reader, then run hermes' own code in a child
process (``profile_admin``) on a handler thread, never on the reader.
- ``profile/create``: ``name`` a valid name (``invalid_profile``) other than
  ``default`` (``profile_exists``), ``cloneFrom`` an existing profile,
  ``noSkills`` only without it (``invalid_params``). The answer is the new
  profile as ``profile/list`` gives it.
- ``profile/delete``: ``name`` an existing profile other than ``default``
  (``invalid_profile``). The profile is marked as being deleted, so every
  request that would start one of its workers fails with ``unknown_profile``
  from then on (``RoutedMethods._key``); each of its workers is
  stopped (``worker/exited`` reason ``deleted``; its runs end as for any
  stop), hermes deletes it, and any worker a request started meanwhile is
  stopped too; then the mark goes. The answer is the directory removed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import encode
from ..protocol import profiles as pf
from ..wire import ErrorType, Request, RpcError
from .profile_admin import delete_profile, make_profile
from .profiles import DEFAULT_PROFILE, check_name
from .routes import SlotKey
from .routing import spawn_thread
from .workers import WorkerPool


class ProfileMethods:
    home: Path
    pool: WorkerPool
    deleting: set[str]
    _lock: threading.Lock
    _reply: Callable[..., bool]
    _key: Callable[[str | None, str | None], SlotKey]
    _refuse_deleted: Callable[[str], None]
    _profile_listing: Callable[[], pf.ProfileListResult]

    def _h_profile_create(self, req: Request, p: pf.ProfileCreateParams) -> None:
        name = check_name(p.name)
        if name == DEFAULT_PROFILE:
            raise RpcError(ErrorType.PROFILE_EXISTS, "default is the Hermes home", profile=name)
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
        name = check_name(p.name)
        if name == DEFAULT_PROFILE:
            raise RpcError(
                ErrorType.INVALID_PROFILE, "default is the Hermes home itself", profile=name
            )
        self._key(name, None)  # unknown_profile, or one that escapes
        with self._lock:
            self._refuse_deleted(name)  # a second delete of it
            self.deleting.add(name)

        def delete() -> None:
            try:
                self._stop_workers(name)
                gone = delete_profile(*self._child(), name)
                self._stop_workers(name)  # one a request started meanwhile
            finally:
                with self._lock:
                    self.deleting.discard(name)
            self._reply(req, encode(pf.ProfileDeleteResult(str(gone))))

        try:
            self._off_reader(req, delete)
        except BaseException:  # no thread: the profile must not stay marked for good
            with self._lock:
                self.deleting.discard(name)
            raise

    def _child(self) -> tuple[str, Path, dict[str, str]]:
        """What a profile_admin child runs with: the workers' Python, the home, the env."""
        return self.pool.agent_python, self.home, self.pool.base_env

    def _stop_workers(self, name: str) -> None:
        for slot in self.pool.slots():
            if slot.profile == name:
                self.pool.stop(slot, reason="deleted")

    def _off_reader(self, req: Request, job: Callable[[], Any]) -> None:
        def run() -> None:
            try:
                job()
            except Exception as exc:
                self._reply(req, error=exc)

        spawn_thread(run)  # a child process, a second or so: never on the host's reader
