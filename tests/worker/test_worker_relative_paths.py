"""worker/relative_paths.py: a relative path the agent gives one of hermes' media tools
becomes that path in the calling task's directory, on the local backend only."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import relative_paths, terminal_dir


class Registry:
    """hermes' tool registry, in short: entries by name, each with a handler."""

    def __init__(self, *names: str) -> None:
        self.seen: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.entries = {n: SimpleNamespace(handler=self.recorder()) for n in names}

    def recorder(self) -> Any:
        def handler(args: dict[str, Any], **kw: Any) -> str:
            self.seen.append((args, kw))
            return "ok"

        return handler

    def get_entry(self, name: str) -> Any:
        return self.entries.get(name)


FILE_TOOLS = SimpleNamespace(
    _authoritative_workspace_root=lambda task_id="default": {"s1": "/ws"}.get(task_id),
    _resolve_base_dir=lambda task_id="default": "/ws" if task_id == "s1" else "/process",
)


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(terminal_dir, "local", lambda: True)
    yield


def called(registry: Registry, tool: str, args: dict[str, Any], task_id: str = "s1") -> Any:
    assert registry.entries[tool].handler(args, task_id=task_id) == "ok"
    return registry.seen[-1][0]


@pytest.mark.usefixtures("local")
def test_a_relative_path_is_made_absolute_in_the_tasks_directory() -> None:
    registry = Registry("vision_analyze", "image_generate")
    assert relative_paths.install(registry, FILE_TOOLS) == 2
    args = called(registry, "vision_analyze", {"image_url": "shots/a.png", "question": "q"})
    assert args == {"image_url": "/ws/shots/a.png", "question": "q"}
    listed = {"prompt": "p", "reference_image_urls": ["b.png", "https://x/c.png", "/abs/d.png"]}
    assert called(registry, "image_generate", listed)["reference_image_urls"] == [
        "/ws/b.png",
        "https://x/c.png",
        "/abs/d.png",
    ]
    assert registry.seen[-1][1] == {"task_id": "s1"}


@pytest.mark.usefixtures("local")
@pytest.mark.parametrize(
    "value", ["/abs/a.png", "~/a.png", "https://x/a.png", "data:image/png;base64,AA", "", 7]
)
def test_urls_absolute_and_home_paths_and_other_values_pass_as_they_are(value: object) -> None:
    registry = Registry("vision_analyze")
    relative_paths.install(registry, FILE_TOOLS)
    assert called(registry, "vision_analyze", {"image_url": value})["image_url"] == value


@pytest.mark.usefixtures("local")
def test_a_task_without_a_directory_of_its_own_keeps_the_path_as_sent() -> None:
    registry = Registry("vision_analyze")
    relative_paths.install(registry, FILE_TOOLS)
    assert called(registry, "vision_analyze", {"image_url": "a.png"}, "other")["image_url"] == (
        "a.png"
    )


def test_on_a_sandboxed_backend_the_path_is_left_to_hermes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terminal_dir, "local", lambda: False)
    registry = Registry("vision_analyze")
    relative_paths.install(registry, FILE_TOOLS)
    assert called(registry, "vision_analyze", {"image_url": "a.png"})["image_url"] == "a.png"


def test_installing_again_adds_no_layer_and_missing_parts_change_nothing() -> None:
    registry = Registry("vision_analyze", "terminal")
    assert relative_paths.install(registry, FILE_TOOLS) == 1
    wrapped = registry.entries["vision_analyze"].handler
    assert relative_paths.install(registry, FILE_TOOLS) == 1
    assert registry.entries["vision_analyze"].handler is wrapped
    bare = Registry("vision_analyze")
    handler = bare.entries["vision_analyze"].handler
    assert relative_paths.install(bare, SimpleNamespace()) == 0
    assert bare.entries["vision_analyze"].handler is handler
