"""Completing an ``@`` reference as a user types it (``reference/complete``).

Contract: ``complete(text, root, limit, refused, files)`` gives the items for
``text`` (the reference from its ``@`` to the cursor), best first, at most
``limit``, and whether more matched. Every path offered lies in ``root`` once
symlinks are resolved and is one ``refused(path)`` (hermes' own rule for what a
reference may attach, given the absolute path) lets through, so nothing is
offered that the turn would refuse: no file outside the workspace, of another
profile, or a credential store. Three forms:
- ``@`` and a word with no ``:``: the keywords it begins (``@diff``,
  ``@staged``, ``@file:``, ``@folder:``, ``@git:``, ``@url:``); then, for two
  characters or more, files found anywhere under ``root`` by their name
  (``files(root)`` lists them: ``repo_files``), ranked exact name, name prefix,
  a word of the name (``conf`` in ``app_config.py``, ``Chrome`` in
  ``appChrome.ts``), anywhere in the name, its letters in order; then by
  shorter path. A hidden file only when the word starts with ``.``.
- ``@file:`` or ``@folder:`` and a path (or ``@`` and a word with a ``/``,
  taken as ``@file:``): the entries of the folder typed so far whose names
  begin with the last part (ignoring case), folders first; ``@folder:`` offers
  folders only, ``@file:`` files and folders to go on into (their text ends
  with ``/``). Hidden entries only when the last part starts with ``.``. A
  path may be relative to ``root``, absolute or start with ``~``, as hermes
  reads it; the typed part is kept as typed.
- anything else (``@git:``, ``@url:``, a ``@file:`` with a line range):
  nothing.
A path hermes would not read back as one reference (with a space, a trailing
``.``, ``,`` and the like, or what looks like a line range) is quoted, as it
is when the user opened a quote; one no quote can hold is left out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ..protocol import inputs as i

KEYWORDS = (
    ("diff", "the working tree's changes (git diff)"),
    ("staged", "the staged changes (git diff --staged)"),
    ("file:", "a file, or some of its lines (@file:path:10-20)"),
    ("folder:", "a folder's listing"),
    ("git:", "the last N commits with their patches (@git:5)"),
    ("url:", "a web page's text"),
)
MIN_FUZZY = 2
_QUOTES = "\"'`"
_NEEDS_QUOTES = re.compile(r"\s|[,.;!?)\]}]$|:\d+(-\d+)?$")
_BOUNDARY = "-_. /"

Refused = Callable[[str], bool]
Files = Callable[[str], tuple[list[str], bool]]


def complete(
    text: str, root: str, limit: int, refused: Refused, files: Files
) -> tuple[list[i.ReferenceCompletion], bool]:
    body = text[1:]
    kind, colon, value = body.partition(":")
    if colon and kind in ("file", "folder"):
        return _listing(kind, value, root, limit, refused)
    if colon:
        return [], False
    if "/" in body:
        return _listing("file", body, root, limit, refused)
    found = [
        i.ReferenceCompletion("@" + name, "@" + name, meaning, "reference")
        for name, meaning in KEYWORDS
        if name.startswith(body.lower())
    ]
    if len(body) < MIN_FUZZY:
        return found[:limit], len(found) > limit
    named, more = _by_name(body, root, limit - len(found), refused, files)
    return found + named, more


def _inside(real: str, top: str) -> bool:
    return real == top or real.startswith(top.rstrip("/") + "/")


def _offered(path: str, top: str, refused: Refused) -> bool:
    """In the workspace once symlinks are resolved, and one hermes would attach."""
    real = os.path.realpath(path)
    return _inside(real, top) and not refused(real)


def _quoted(path: str, quote: str) -> str | None:
    if not quote and not _NEEDS_QUOTES.search(path):
        return path
    for q in quote or _QUOTES:
        if q not in path and "\n" not in path:
            return f"{q}{path}{q}"
    return None


def _listing(
    kind: str, value: str, root: str, limit: int, refused: Refused
) -> tuple[list[i.ReferenceCompletion], bool]:
    quote = value[0] if value[:1] and value[0] in _QUOTES else ""
    if quote:
        value = value[1:].removesuffix(quote)
    typed_dir, slash, prefix = value.rpartition("/")
    typed_dir += slash
    folder = os.path.join(root, os.path.expanduser(typed_dir)) if typed_dir else root
    top = os.path.realpath(root)
    if not _inside(os.path.realpath(folder), top):
        return [], False
    try:
        with os.scandir(folder) as listed:
            # Neither file nor folder (a FIFO, a link to a device): nothing to attach.
            entries = [(e.name, e.is_dir()) for e in listed if e.is_dir() or e.is_file()]
    except OSError:
        return [], False
    low = prefix.lower()
    hidden = prefix.startswith(".")
    wanted = sorted(
        (not is_dir, name.lower(), name, is_dir)
        for name, is_dir in entries
        if name.lower().startswith(low)
        and (hidden or not name.startswith("."))
        and (is_dir or kind == "file")
    )
    found: list[i.ReferenceCompletion] = []
    for _, _, name, is_dir in wanted:
        full = os.path.join(folder, name)
        if not _offered(full, top, refused):
            continue
        path = _quoted(typed_dir + name + ("/" if is_dir else ""), quote)
        if path is None:
            continue
        label = name + "/" if is_dir else name
        found.append(
            i.ReferenceCompletion(f"@{kind}:{path}", label, None, "folder" if is_dir else "file")
        )
        if len(found) > limit:
            return found[:limit], True
    return found, False


def rank(name: str, word: str) -> int | None:
    """Lower is better; None: ``name`` does not match ``word``."""
    low, want = name.lower(), word.lower()
    if low == want:
        return 0
    if low.startswith(want):
        return 1
    at = low.find(want)
    if at > 0:
        before, first = name[at - 1], name[at]
        word_start = before in _BOUNDARY or (before.islower() and first.isupper())
        return 2 if word_start else 3
    letters = iter(low)
    return 4 if all(ch in letters for ch in want) else None


def _by_name(
    word: str, root: str, limit: int, refused: Refused, files: Files
) -> tuple[list[i.ReferenceCompletion], bool]:
    listed, cut = files(root)
    hidden = word.startswith(".")
    ranked = []
    for rel in listed:
        name = rel.rpartition("/")[2]
        if name.startswith(".") and not hidden:
            continue
        tier = rank(name, word)
        if tier is not None:
            ranked.append((tier, len(rel), rel, name))
    ranked.sort()
    top = os.path.realpath(root)
    found: list[i.ReferenceCompletion] = []
    for _, _, rel, name in ranked:
        full = os.path.join(root, rel)
        if not (os.path.isfile(full) and _offered(full, top, refused)):
            continue
        path = _quoted(rel, "")
        if path is None:
            continue
        where = rel.rpartition("/")[0] or None
        found.append(i.ReferenceCompletion(f"@file:{path}", name, where, "file"))
        if len(found) > limit:
            return found[:limit], True
    return found, cut
