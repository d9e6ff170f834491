"""Make, rename, delete, pack or unpack a profile with hermes' own code, in a
process of its own (``profile/create``, ``profile/rename``, ``profile/delete``,
``profile/export``, ``profile/import``).

Contract: ``main(argv)`` runs with ``HERMES_HOME`` the Hermes root and no
profile's secrets in its environment (the supervisor's ``template_env``):
- ``create --name N [--clone-from P] [--no-skills] [--description D]`` makes
  the profile as ``hermes profile create`` does: hermes' ``create_profile``
  (with ``--clone-from``: copying that profile's config.yaml, .env, SOUL.md,
  skills and memory), then, for a fresh profile not made with
  ``--no-skills``, hermes' bundled skills (``seed_profile_skills``, whose own
  process inherits this clean environment). No wrapper script is written
  (hermes' CLI alias in ~/.local/bin).
- ``rename --name N --new-name M`` renames it as ``hermes profile rename``
  does (hermes' ``rename_profile``: its gateway stopped, its directory moved,
  the sticky active profile and Honcho host blocks updated). Its command
  alias follows it only if it had one: a profile without hermes' wrapper in
  ~/.local/bin gets none.
- ``delete --name N`` deletes it as ``hermes profile delete --yes`` does
  (hermes' ``delete_profile``: its gateway service and processes stopped, its
  alias removed, its directory removed).
- ``export --name N --path P`` packs it into the ``.tar.gz`` ``P`` as ``hermes
  profile export`` does (hermes' ``export_profile``: a named profile without
  its ``.env`` and ``auth.json``; the default one, only what hermes' allow-list
  keeps of the home), tried twice when a file vanished while it was copied (a
  running worker replaces its files). Each ``*.db`` is packed as a snapshot
  taken with SQLite's backup API, as ``hermes backup`` takes it, without its
  ``-wal``/``-shm`` (``db_copy``): a worker writing it meanwhile cannot tear
  it. The answer's ``home`` is the archive.
- ``import --path P [--name N]`` unpacks it as ``hermes profile import`` does
  (hermes' ``import_profile``: each member checked, no link, nothing outside
  the new profile, staged then moved in), under ``N`` or the archive's one
  top-level directory; the name is checked first. ``bad_archive`` for what is
  not a profile archive hermes would unpack.
hermes' prints go to stderr: the answer alone is written to the original
stdout, one JSON line, ``{"home": path, "seeded": bool | null}`` (``seeded``:
create only) or ``{"error": kind, "message": text}`` with kind ``exists``,
``missing`` (no such profile to rename, delete or export), ``invalid`` (a
name hermes refuses, a source that is gone), ``failed`` (the directory could
not be moved or removed), ``bad_archive``, ``unwritable`` (the archive could
not be written) or
``unavailable`` (hermes-agent missing). It exits 0 once it has answered.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hermes_stdio.worker.profile_admin")
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create")
    create.add_argument("--name", required=True)
    create.add_argument("--clone-from")
    create.add_argument("--no-skills", action="store_true")
    create.add_argument("--description")
    rename = actions.add_parser("rename")
    rename.add_argument("--name", required=True)
    rename.add_argument("--new-name", required=True)
    delete = actions.add_parser("delete")
    delete.add_argument("--name", required=True)
    export = actions.add_parser("export")
    export.add_argument("--name", required=True)
    export.add_argument("--path", required=True)
    unpack = actions.add_parser("import")
    unpack.add_argument("--path", required=True)
    unpack.add_argument("--name")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = os.dup(1)
    os.dup2(2, 1)  # whatever hermes prints must not pass for the answer

    def answer(value: dict[str, Any]) -> int:
        os.write(out, (json.dumps(value) + "\n").encode())
        return 0

    try:
        from hermes_cli import profiles
    except ImportError as exc:
        return answer({"error": "unavailable", "message": f"cannot import hermes-agent: {exc}"})
    if args.action == "rename":
        return answer(_rename(profiles, args.name, args.new_name))
    if args.action == "export":
        return answer(_export(profiles, args.name, args.path))
    if args.action == "import":
        return answer(_import(profiles, args.path, args.name))
    if args.action == "delete":
        try:
            gone = profiles.delete_profile(args.name, yes=True)
        except FileNotFoundError as exc:
            return answer({"error": "missing", "message": str(exc)})
        except ValueError as exc:
            return answer({"error": "invalid", "message": str(exc)})
        except RuntimeError as exc:
            return answer({"error": "failed", "message": str(exc)})
        return answer({"home": str(gone)})
    try:
        path = profiles.create_profile(
            args.name,
            clone_from=args.clone_from,
            clone_config=args.clone_from is not None,
            no_alias=True,
            no_skills=args.no_skills,
            description=args.description,
        )
    except FileExistsError as exc:
        return answer({"error": "exists", "message": str(exc)})
    except (ValueError, FileNotFoundError) as exc:
        return answer({"error": "invalid", "message": str(exc)})
    seeded = None
    if args.clone_from is None and not args.no_skills:
        seeded = profiles.seed_profile_skills(path, quiet=True) is not None
    return answer({"home": str(path), "seeded": seeded})


def _rename(profiles: Any, old: str, new: str) -> dict[str, Any]:
    wrapper = profiles._get_wrapper_dir() / old
    try:
        had_alias = "hermes -p" in wrapper.read_text()  # the test hermes' own removal makes
    except (OSError, UnicodeDecodeError):
        had_alias = False
    if not had_alias:  # hermes would write one for the new name regardless
        profiles.create_wrapper_script = lambda *_a, **_k: None
    try:
        path = profiles.rename_profile(old, new)
    except FileExistsError as exc:
        return {"error": "exists", "message": str(exc)}
    except FileNotFoundError as exc:
        return {"error": "missing", "message": str(exc)}
    except ValueError as exc:
        return {"error": "invalid", "message": str(exc)}
    except OSError as exc:
        return {"error": "failed", "message": str(exc)}
    return {"home": str(path)}


def _export(profiles: Any, name: str, path: str) -> dict[str, Any]:
    import contextlib
    import shutil

    from .db_copy import snapshotting

    try:
        from hermes_cli.backup import _safe_copy_db  # what hermes backup copies a db with

        databases: Any = snapshotting(_safe_copy_db)
    except ImportError:
        print("hermes-stdio: no hermes_cli.backup: databases are copied as files", flush=True)
        databases = contextlib.nullcontext()
    try:
        with databases:
            try:
                written = profiles.export_profile(name, path)
            except shutil.Error:  # a file a running worker replaced went while it was copied
                written = profiles.export_profile(name, path)
    except shutil.Error as exc:
        return {"error": "failed", "message": f"the profile kept changing: {exc}"}
    except FileNotFoundError as exc:
        return {"error": "missing", "message": str(exc)}
    except ValueError as exc:
        return {"error": "invalid", "message": str(exc)}
    except OSError as exc:
        return {"error": "unwritable", "message": str(exc)}
    return {"home": str(written)}


def _import(profiles: Any, path: str, name: str | None) -> dict[str, Any]:
    import tarfile
    from pathlib import Path

    # What hermes and tarfile raise for an archive they refuse, or one cut short.
    refused = (ValueError, tarfile.TarError, EOFError)
    try:  # the whole archive read once here: gzip's own errors are OSErrors
        roots = profiles._inspect_profile_archive_roots(Path(path))
    except (*refused, OSError) as exc:
        return {"error": "bad_archive", "message": f"not a profile archive: {exc}"}
    if name is None and len(roots) != 1:
        message = "a profile archive has exactly one top-level directory"
        return {"error": "bad_archive", "message": message}
    canon = profiles.normalize_profile_name(name or roots.pop())
    if canon == "default":  # the Hermes home itself: it exists
        return {"error": "exists", "message": "default is the Hermes home", "name": canon}
    try:
        profiles.validate_profile_name(canon)
    except ValueError as exc:
        return {"error": "invalid", "message": str(exc), "name": canon}
    try:
        made = profiles.import_profile(path, canon)
    except FileExistsError as exc:
        return {"error": "exists", "message": str(exc), "name": canon}
    except refused as exc:
        return {"error": "bad_archive", "message": f"not a profile archive: {exc}"}
    except OSError as exc:
        return {"error": "failed", "message": str(exc)}
    return {"home": str(made)}


if __name__ == "__main__":
    raise SystemExit(main())
