"""completions on a real directory tree: keywords, folder listings and files
found by name, never offering a path outside the workspace or one hermes'
rule refuses, each text one hermes reads back as the same reference."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_stdio.worker.completions import complete, rank
from hermes_stdio.worker.references import refusal


def allow_all(_path: str) -> bool:
    return False


def walked(root: str) -> tuple[list[str], bool]:
    found = []
    for top, _dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        found += [f if rel == "." else f"{rel}/{f}" for f in files]
    return sorted(found), False


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in [
        "src/main.py",
        "src/app_config.py",
        "src/appChrome.ts",
        "src/deep/config.yaml",
        "README.md",
        "Makefile",
        ".env",
        ".hidden_notes",
        "with space/inner.txt",
        "end.",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    (tmp_path / "docs").mkdir()
    return tmp_path


def texts(text: str, root: Path, limit: int = 50, refused=allow_all) -> list[str]:
    items, _ = complete(text, str(root), limit, refused, walked)
    return [item.text for item in items]


def test_a_lone_at_offers_every_keyword(tree: Path) -> None:
    items, more = complete("@", str(tree), 50, allow_all, walked)
    assert [i.text for i in items] == [
        "@diff",
        "@staged",
        "@file:",
        "@folder:",
        "@git:",
        "@url:",
    ]
    assert {i.kind for i in items} == {"reference"} and all(i.detail for i in items)
    assert more is False


def test_a_word_offers_the_keywords_it_begins_then_files_by_name(tree: Path) -> None:
    assert texts("@fi", tree)[:1] == ["@file:"]
    assert texts("@f", tree) == ["@file:", "@folder:"]
    assert texts("@diff", tree) == ["@diff"]


def test_files_are_found_by_name_best_match_first(tree: Path) -> None:
    assert texts("@config", tree) == [
        "@file:src/deep/config.yaml",  # the name begins with it
        "@file:src/app_config.py",  # a word of the name
    ]
    assert texts("@chrome", tree) == ["@file:src/appChrome.ts"]
    assert texts("@mnpy", tree) == ["@file:src/main.py"]  # letters in order


def test_a_file_found_by_name_says_its_folder(tree: Path) -> None:
    items, _ = complete("@main", str(tree), 50, allow_all, walked)
    assert [(i.label, i.detail, i.kind) for i in items] == [("main.py", "src", "file")]
    items, _ = complete("@READ", str(tree), 50, allow_all, walked)
    assert [(i.label, i.detail) for i in items] == [("README.md", None)]


def test_hidden_files_are_offered_only_for_a_word_starting_with_a_dot(tree: Path) -> None:
    assert texts("@notes", tree) == []
    assert texts("@.hidden", tree) == ["@file:.hidden_notes"]


def test_a_folder_lists_its_entries_folders_first(tree: Path) -> None:
    items, more = complete("@file:", str(tree), 50, allow_all, walked)
    assert [(i.text, i.label, i.kind) for i in items] == [
        ("@file:docs/", "docs/", "folder"),
        ("@file:src/", "src/", "folder"),
        ('@file:"with space/"', "with space/", "folder"),
        ('@file:"end."', "end.", "file"),
        ("@file:Makefile", "Makefile", "file"),
        ("@file:README.md", "README.md", "file"),
    ]
    assert more is False


def test_the_typed_folder_is_kept_and_its_last_part_filters_ignoring_case(tree: Path) -> None:
    assert texts("@file:src/AP", tree) == ["@file:src/app_config.py", "@file:src/appChrome.ts"]
    assert texts("@file:./src/m", tree) == ["@file:./src/main.py"]


def test_a_word_with_a_slash_lists_that_folder_as_a_file_reference(tree: Path) -> None:
    assert texts("@src/de", tree) == ["@file:src/deep/"]


def test_folder_mode_offers_folders_only(tree: Path) -> None:
    assert texts("@folder:", tree) == [
        "@folder:docs/",
        "@folder:src/",
        '@folder:"with space/"',
    ]
    assert texts("@folder:src/", tree) == ["@folder:src/deep/"]


def test_an_opened_quote_is_kept_and_closed(tree: Path) -> None:
    assert texts('@file:"with space/in', tree) == ['@file:"with space/inner.txt"']
    assert texts("@file:'src/ma", tree) == ["@file:'src/main.py'"]


def test_every_text_reads_back_as_the_reference_it_offers(tree: Path) -> None:
    from agent.context_references import parse_context_references

    for typed in ["@file:", "@folder:", '@file:"with space/', "@config", "@file:src/"]:
        for item in complete(typed, str(tree), 50, allow_all, walked)[0]:
            refs = parse_context_references(f"see {item.text} please")
            assert len(refs) == 1 and refs[0].raw == item.text
            target = refs[0].target
            assert (tree / target).exists(), (item.text, target)


def test_nothing_outside_the_workspace_is_offered(tree: Path) -> None:
    root = tree / "src"
    assert texts("@file:../", root) == []
    assert texts(f"@file:{tree}/", root) == []
    (root / "escape").symlink_to(tree / "docs")
    (root / "outside.md").symlink_to(tree / "README.md")
    assert "@file:escape/" not in texts("@file:", root)
    assert texts("@outside", root) == []
    assert texts(f"@file:{root}/ma", root) == [f"@file:{root}/main.py"]


def test_what_the_refusal_rule_refuses_is_not_offered(tree: Path) -> None:
    refused = {str((tree / "src" / "main.py").resolve()), str((tree / "docs").resolve())}

    def rule(path: str) -> bool:
        return path in refused

    assert texts("@main", tree, refused=rule) == []
    assert "@file:docs/" not in texts("@file:", tree, refused=rule)
    assert texts("@file:src/m", tree, refused=rule) == []


def test_hermes_rule_refuses_a_dotenv_and_allows_a_source_file(tree: Path) -> None:
    refused = refusal(__import__("agent.context_references").context_references)
    assert refused(str((tree / ".env").resolve())) is True
    assert refused(str((tree / "src" / "main.py").resolve())) is False
    assert texts("@file:.e", tree, refused=refused) == []


def test_the_limit_cuts_the_items_and_says_more_matched(tree: Path) -> None:
    items, more = complete("@file:", str(tree), 2, allow_all, walked)
    assert [i.label for i in items] == ["docs/", "src/"] and more is True
    items, more = complete("@fi", str(tree), 1, allow_all, walked)
    assert [i.text for i in items] == ["@file:"] and more is True  # Makefile matched too
    items, more = complete("@conf", str(tree), 1, allow_all, walked)
    assert [i.label for i in items] == ["config.yaml"] and more is True


def test_git_url_and_line_ranges_complete_nothing(tree: Path) -> None:
    assert texts("@git:", tree) == []
    assert texts("@url:https://ex", tree) == []
    assert texts("@file:README.md:1", tree) == []
    assert texts("@file:nowhere/", tree) == []


def test_a_name_no_quote_can_hold_is_left_out(tree: Path) -> None:
    (tree / "docs" / "a\"b'c`d e").write_text("x")
    assert texts("@file:docs/", tree) == []


@pytest.mark.parametrize(
    ("name", "word", "tier"),
    [
        ("config.yaml", "config.yaml", 0),
        ("config.yaml", "conf", 1),
        ("app_config.py", "config", 2),
        ("appChrome.ts", "chrome", 2),
        ("myconfig.py", "config", 3),
        ("main.py", "mnpy", 4),
        ("main.py", "zz", None),
    ],
)
def test_rank_orders_exact_prefix_word_substring_letters(
    name: str, word: str, tier: int | None
) -> None:
    assert rank(name, word) == tier


def test_a_fifo_or_a_link_to_a_device_is_not_offered(tree: Path) -> None:
    os.mkfifo(tree / "docs" / "pipe")
    (tree / "docs" / "zeros").symlink_to("/dev/zero")
    (tree / "docs" / "page.md").write_text("x")
    assert texts("@file:docs/", tree) == ["@file:docs/page.md"]
    assert texts("@pipe", tree) == [] and texts("@zeros", tree) == []
