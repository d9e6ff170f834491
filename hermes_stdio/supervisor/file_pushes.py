"""Pushes for the profiles and their files a host shows, read from one profile watch.

Contract (a mixin of ``Supervisor``, which provides ``home``, ``_notify_host``,
``cron_schedule`` and ``_watch_settled``): ``_watch_profiles()`` (on a thread
of its own, once a process) starts ``profile_watch.ProfileWatch`` and pushes
``profile/listChanged`` when the listing changes, and for each profile's file
that changes ``config/changed``, ``soul/changed``, ``env/changed``,
``account/changed`` (its ``auth.json``),
``memory/changed`` (which file) and ``cron/listChanged``; the cron schedule
is told of changed job files and listings. ``_watch_settled`` is set once the
watch has read its starting point, or cannot watch (no inotify: logged).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from ..protocol import accounts as ac
from ..protocol import config as cf
from ..protocol import cron as cr
from ..protocol import encode
from ..protocol import env as ev
from ..protocol import memory as mm
from ..protocol import profiles as pf
from ..protocol import soul as so
from ..protocol.record import Record
from ..transport.log import log
from .cron_schedule import CronSchedule
from .profiles import profile_home


class FilePushes:
    home: Path
    cron_schedule: CronSchedule
    _watch_settled: threading.Event
    _notify_host: Callable[[str, object], object]

    def _watch_profiles(self) -> None:
        from .profile_watch import ProfileWatch  # ctypes: not on the way to initialize

        def announce() -> None:
            self._notify_host("profile/listChanged", encode(pf.ProfileListChangedNotification()))
            self.cron_schedule.look_all()

        def jobs_changed(profile: str) -> None:
            push("cron/listChanged", cr.CronListChangedNotification(profile))
            self.cron_schedule.look(profile, profile_home(self.home, profile))

        def push(method: str, params: Record) -> None:
            self._notify_host(method, encode(params))

        files = {
            "config.yaml": lambda p, v: push("config/changed", cf.ConfigChangedNotification(p, v)),
            "SOUL.md": lambda p, v: push("soul/changed", so.SoulChangedNotification(p, v)),
            "cron/jobs.json": lambda p, _: jobs_changed(p),
            ".env": lambda p, _: push("env/changed", ev.EnvChangedNotification(p)),
            "auth.json": lambda p, _: push("account/changed", ac.AccountChangedNotification(p)),
            "memories/MEMORY.md": lambda p, _: push(
                "memory/changed", mm.MemoryChangedNotification(p, "memory")
            ),
            "memories/USER.md": lambda p, _: push(
                "memory/changed", mm.MemoryChangedNotification(p, "user")
            ),
        }
        try:
            if ProfileWatch(self.home, announce, files).start():
                log("hermes-stdio: watching the profiles for profile/listChanged")
            else:
                log(
                    "hermes-stdio: profiles are not watched (no inotify):"
                    " profile/listChanged not sent"
                )
        finally:
            self._watch_settled.set()
