"""Tool definitions as tool/list shows them: each named tool once, sorted, with its toolset;
malformed definitions are skipped, and no enabled toolsets means all of them."""

from __future__ import annotations

from hermes_stdio.worker.tools import described


def fn(name: object, description: str = "does things") -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "description": description}}


def test_each_named_tool_is_listed_once_sorted_with_its_toolset() -> None:
    definitions = [fn("write_file"), fn("terminal", "runs"), fn("terminal", "again"), fn("")]
    definitions += [fn(None), {"type": "function"}, "junk"]  # type: ignore[list-item]
    toolsets = {"terminal": "terminal", "write_file": "file"}
    listed = described(definitions, ["file", "terminal"], None, toolsets.get)
    assert listed == {
        "tools": [
            {"name": "terminal", "toolset": "terminal", "description": "runs"},
            {"name": "write_file", "toolset": "file", "description": "does things"},
        ],
        "enabled_toolsets": ["file", "terminal"],
        "disabled_toolsets": [],
    }


def test_no_enabled_toolsets_means_all_and_an_unknown_toolset_is_null() -> None:
    listed = described([fn("mcp__echo__say")], None, ["terminal"], lambda name: None)
    assert listed["tools"] == [
        {"name": "mcp__echo__say", "toolset": None, "description": "does things"}
    ]
    assert (listed["enabled_toolsets"], listed["disabled_toolsets"]) == (None, ["terminal"])
