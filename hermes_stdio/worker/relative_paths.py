"""A relative path the agent gives a media tool names a file in its session's
directory, not in the worker's process directory.

hermes' vision, video, speech and image or video generation tools take a local
file by path, and resolve a relative one against the process's directory: in
hermes' CLI, the directory the user started it in. A worker's process directory
is its profile's home, shared by all its sessions, so the agent's
``vision_analyze("shot.png")`` for a screenshot its command had just saved in
the workspace found no such file.

Contract: ``install(registry, file_tools)`` wraps the handler of each tool in
``PATH_ARGS`` that hermes' tool ``registry`` holds, once (a tool it lacks is
skipped; it returns how many it wrapped, 0 when ``file_tools`` lacks the two
functions below). With the local terminal backend (``terminal_dir.local()``),
each argument named there that is a relative file path (a string without a URL
scheme, not absolute, not starting with ``~``; or a list of such strings, each)
becomes that path in the calling task's directory, where ``write_file`` puts a
relative path (``file_dir.own_dir``), when hermes finds the task one.
All else reaches the tool as the agent sent it. On other backends hermes reads
such a path inside the sandbox, in the sandbox's directory: it is left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from . import file_dir, terminal_dir

# The tools of hermes that read (or, for speech, write) a local file by path.
PATH_ARGS: dict[str, tuple[str, ...]] = {
    "vision_analyze": ("image_url",),
    "video_analyze": ("video_url",),
    "text_to_speech": ("output_path",),
    "image_generate": ("image_url", "reference_image_urls"),
    "video_generate": ("image_url", "reference_image_urls", "audio"),
    "xai_video_edit": ("video_url",),
    "xai_video_extend": ("video_url",),
}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")  # http:, data:, file:, s3:...
_MARK = "_hermes_stdio_relative_paths"


def install(registry: Any, file_tools: Any) -> int:
    get_entry: Any = getattr(registry, "get_entry", None)
    task_dir = file_dir.own_dir(file_tools)
    if not callable(get_entry) or task_dir is None:
        return 0
    wrapped = 0
    for name, arg_names in PATH_ARGS.items():
        entry = get_entry(name)
        handler = getattr(entry, "handler", None)
        if not callable(handler):
            continue
        if not getattr(handler, _MARK, False):
            entry.handler = _anchored(handler, arg_names, task_dir)
        wrapped += 1
    return wrapped


def _anchored(
    handler: Callable[..., Any],
    arg_names: tuple[str, ...],
    task_dir: Callable[[str], str | None],
) -> Callable[..., Any]:
    def in_task_dir(args: Any, **kw: Any) -> Any:
        if isinstance(args, dict) and terminal_dir.local():
            task_id = kw.get("task_id") or "default"
            relative = [n for n in arg_names if _has_relative(args.get(n))]
            where = task_dir(task_id) if relative else None
            if where is not None:
                args = {**args, **{n: _joined(where, args[n]) for n in relative}}
        return handler(args, **kw)

    setattr(in_task_dir, _MARK, True)
    return in_task_dir


def _is_relative(value: object) -> bool:
    if not isinstance(value, str):
        return False
    path = value.strip()
    return bool(path) and not (_SCHEME.match(path) or os.path.isabs(path) or path.startswith("~"))


def _has_relative(value: object) -> bool:
    if isinstance(value, list):
        return any(_is_relative(item) for item in value)
    return _is_relative(value)


def _joined(where: str, value: Any) -> Any:
    if isinstance(value, list):
        return [_joined(where, item) for item in value]
    if _is_relative(value):
        return os.path.normpath(os.path.join(where, str(value).strip()))
    return value
