"""Profiles: names, homes, and the environment a profile's worker starts with.

Contract:
- ``default`` is the Hermes home itself; any other profile is
  ``<home>/profiles/<name>``. Names follow Hermes' own rule
  (``[a-z0-9][a-z0-9_-]{0,63}``); anything else raises ``invalid_profile``,
  and a profile directory that resolves outside ``<home>/profiles`` (a
  symlink), to another profile's directory, or nowhere (a symlink loop) is
  refused too, so a name never escapes the home and one home has one name. A valid name with
  no directory raises ``unknown_profile``. ``listed_profiles`` lists exactly
  the profiles that pass these checks; ``describe`` reads one's model,
  provider and description, ``listing`` all of that (and ``unreadable``'s
  problem) for every listed one, reading the files through ``profile_files``
  (a YAML file is parsed again only once its identity, size or times change,
  or while it is under 2 s old).
- ``worker_env`` starts from the supervisor's environment, removes every key
  hermes could load from any *other* profile's ``.env`` (parsed as hermes
  does, with python-dotenv; so no profile sees another's secrets) and
  Hermes' per-process state, then sets ``HERMES_HOME`` (and, for the worker,
  its profile and the Hermes root: ``HERMES_STDIO_PROFILE``,
  ``HERMES_STDIO_ROOT``). The profile's own ``.env`` is loaded by
  hermes-agent itself. Lazy package installs are
  switched off unless the profile's ``config.yaml`` says
  ``security.allow_lazy_installs: true``. It raises ``profile_unreadable``
  (``data.file``) for what ``unreadable`` finds: the profile's ``config.yaml``,
  ``.env`` or ``SOUL.md`` is there but is not a regular file (a FIFO would hang
  hermes' read of it, a device would never end), ``config.yaml`` nests too
  deeply for PyYAML's pure Python parser (libyaml, which hermes uses,
  overflows its C stack on such a file and the worker dies of SIGSEGV), or is
  not YAML hermes could use (a syntax error, not UTF-8, not a mapping), on
  which hermes would silently run on its defaults. ``listing`` gives each
  profile's such problem too.
- ``template_env`` is the worker template's environment: the supervisor's,
  without any profile's ``.env`` keys, Hermes' per-process state or
  ``HERMES_HOME``, so the template (whose memory every forked worker starts
  from) never holds a profile's secrets.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from ..transport.profile_files import load_config, load_yaml, not_regular, read_regular
from ..wire import ErrorType, RpcError

DEFAULT_PROFILE = "default"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")  # always fullmatch: "$" allows a trailing \n
# What hermes' variable names look like.
_HERMES_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+")
# Set by hermes-agent per process; never inherited from the supervisor's environment.
_PROCESS_STATE_PREFIXES = ("HERMES_SESSION_", "TERMINAL_", "HERMES_STDIO_")


def resolve_home(cli_value: str | None, environ: dict[str, str]) -> Path:
    raw = cli_value or environ.get("HERMES_HOME") or "~/.hermes"
    return Path(raw).expanduser().resolve()


def check_name(name: str | None) -> str:
    if name is None or name == DEFAULT_PROFILE:
        return DEFAULT_PROFILE
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RpcError(
            ErrorType.INVALID_PROFILE,
            f"invalid profile name {str(name)[:80]!r}: use 1-64 of a-z, 0-9, _ and -",
            profile=str(name)[:80],
        )
    return name


def profile_home(home: Path, name: str) -> Path:
    """The directory of a valid, existing profile."""
    name = check_name(name)
    if name == DEFAULT_PROFILE:
        return home
    try:
        root = (home / "profiles").resolve()
        path = (root / name).resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        raise RpcError(
            ErrorType.INVALID_PROFILE, f"profile {name!r} does not resolve", profile=name
        ) from None
    if path.parent != root:
        raise RpcError(
            ErrorType.INVALID_PROFILE, f"profile {name!r} resolves outside {root}", profile=name
        )
    if path.name != name:  # a second name for another profile: two workers, one home
        raise RpcError(
            ErrorType.INVALID_PROFILE, f"profile {name!r} is profile {path.name!r}", profile=name
        )
    if not path.is_dir():
        raise RpcError(ErrorType.UNKNOWN_PROFILE, f"no profile {name!r} under {root}", profile=name)
    return path


def listed_profiles(home: Path) -> list[tuple[str, Path]]:
    """Every profile a request may name, as ``profile_home`` accepts it: default
    (if the home exists), then each valid profile directory by name."""
    found = [(DEFAULT_PROFILE, home)] if home.is_dir() else []
    root = home / "profiles"
    names = sorted(e.name for e in root.iterdir()) if root.is_dir() else []
    for name in names:
        if name == DEFAULT_PROFILE or not _NAME.fullmatch(name):
            continue
        try:
            found.append((name, profile_home(home, name)))
        except RpcError:  # a symlink out of profiles/, or not a directory
            continue
    return found


def _scalar(value: object) -> str | None:
    # Only a plain value: str() of a nested (or YAML-aliased) structure can be huge.
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip() or None
    return None


def describe(path: Path) -> tuple[str | None, str | None, str]:
    """A profile's model, provider (config.yaml) and description (profile.yaml), read
    as ``hermes profile list`` reads them; what is missing, unreadable or not a plain
    value is empty."""
    return _describe(load_config(path), path)


def _describe(config: dict[str, Any], path: Path) -> tuple[str | None, str | None, str]:
    model_cfg = config.get("model")
    model = provider = None
    if isinstance(model_cfg, dict):
        model = _scalar(model_cfg.get("default")) or _scalar(model_cfg.get("model"))
        provider = _scalar(model_cfg.get("provider"))
    else:
        model = _scalar(model_cfg)
    description = _scalar(load_config(path, "profile.yaml").get("description"))
    return model, provider, description or ""


class Listed(NamedTuple):
    name: str
    home: str
    model: str | None
    provider: str | None
    description: str
    problem: str | None  # why its worker would be refused (``unreadable``)
    active: bool = False  # the one hermes' CLI runs without -p (``active_name``)


Listing = list[Listed]


def listing(home: Path) -> Listing:
    """Each listed profile's name, home, model, provider, description, problem and
    whether it is the active one."""
    found: Listing = []
    active = active_name(home)
    for name, path in listed_profiles(home):
        config, refused = _read_profile(path)  # config.yaml parsed once for both
        problem = None if refused is None else " ".join(refused)
        found.append(Listed(name, str(path), *_describe(config, path), problem, name == active))
    return found


ACTIVE_FILE = "active_profile"


def active_name(home: Path) -> str:
    """The sticky profile hermes' CLI runs without ``-p`` (``hermes profile use``):
    the name in ``<home>/active_profile``, default when it is empty or not there
    (or not a regular file, which hermes would hang reading)."""
    raw = read_regular(home / ACTIVE_FILE)
    name = raw.decode(errors="replace").strip() if raw is not None else ""
    return name or DEFAULT_PROFILE


def all_profile_homes(home: Path) -> dict[str, Path]:
    homes = {DEFAULT_PROFILE: home}
    root = home / "profiles"
    if root.is_dir():
        for entry in sorted(root.iterdir()):
            # profiles/default would shadow the real default home (and its secrets).
            if entry.name != DEFAULT_PROFILE and _NAME.fullmatch(entry.name) and entry.is_dir():
                homes[entry.name] = entry
    return homes


def _dotenv_text(raw: bytes) -> str:
    """Decoded as hermes decodes a ``.env`` (a BOM says UTF-16; else UTF-8, else latin-1)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not raw.startswith(
        (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
    ):
        return raw.decode("utf-16", errors="replace")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def dotenv_keys(path: Path, among: Iterable[str] = ()) -> set[str]:
    """The variables python-dotenv (hermes' loader) parses from ``path``, and each
    name in ``among`` that is written as NAME= inside a line: hermes splits that
    into a variable of its own when it is one of its names (a lost line end). The
    second errs towards more: those are secrets other profiles must not inherit.

    Linear in the file: a 40 KB value once took a search for every NAME= 7 s,
    with the interpreter lock held, so a long secret froze the supervisor."""
    from dotenv.parser import parse_stream  # only when a worker starts

    raw = read_regular(path)
    if raw is None:
        return set()
    text = _dotenv_text(raw)
    keys = {b.key for b in parse_stream(io.StringIO(text)) if b.key}
    keys.update(n for n in among if _HERMES_NAME.fullmatch(n) and f"{n}=" in text)
    return keys


def unreadable(own_home: Path) -> tuple[str, str] | None:
    """The file that would keep a profile's worker from starting, and why: hermes'
    reads of its config.yaml, .env or SOUL.md (which hermes' first config load reads
    whole) would hang or crash the worker, or hermes would drop every setting in
    its config.yaml and run on its defaults (losing, say, its ``approvals.deny``
    rules). None when there is none."""
    return _read_profile(own_home)[1]


def _read_profile(own_home: Path) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """The profile's config.yaml mapping (read once: a file not regular is not
    read) and ``unreadable``'s answer."""
    config, problem = load_yaml(own_home / "config.yaml")
    for file in ("config.yaml", ".env", "SOUL.md"):
        if not_regular(own_home / file):
            return config, (file, "is not a regular file")
    return config, None if problem is None else ("config.yaml", problem)


def _refuse_unreadable(own_home: Path, name: str) -> dict[str, Any]:
    """The profile's config.yaml, unless ``unreadable`` says why its worker would
    not work (``profile_unreadable``)."""
    config, refused = _read_profile(own_home)
    if refused is not None:
        file, why = refused
        raise RpcError(
            ErrorType.PROFILE_UNREADABLE,
            f"profile {name!r}: {file} {why}",
            profile=name,
            file=file,
        )
    return config


def template_env(home: Path, base: dict[str, str]) -> dict[str, str]:
    secret: set[str] = set()
    for path in all_profile_homes(home).values():
        secret |= dotenv_keys(path / ".env", among=base)
    return {
        k: v
        for k, v in base.items()
        if k not in secret and k != "HERMES_HOME" and not k.startswith(_PROCESS_STATE_PREFIXES)
    }


def worker_env(home: Path, name: str, base: dict[str, str]) -> dict[str, str]:
    own_home = profile_home(home, name)
    config = _refuse_unreadable(own_home, name)
    foreign: set[str] = set()
    for other, path in all_profile_homes(home).items():
        if other != name:
            foreign |= dotenv_keys(path / ".env", among=base)
    foreign -= dotenv_keys(own_home / ".env")  # its own file sets these again
    env = {
        k: v
        for k, v in base.items()
        if k not in foreign and not k.startswith(_PROCESS_STATE_PREFIXES)
    }
    env["HERMES_HOME"] = str(own_home)
    env["HERMES_STDIO_PROFILE"] = name
    env["HERMES_STDIO_ROOT"] = str(home)  # the fence's root: own_home may be a symlink's target
    security = config.get("security")
    allow_installs = isinstance(security, dict) and security.get("allow_lazy_installs") is True
    if not allow_installs:
        env["HERMES_DISABLE_LAZY_INSTALLS"] = "1"
    return env
