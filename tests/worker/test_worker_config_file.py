"""worker/config_file.py on real files: edits keep the file's comments and mean
exactly what was asked as hermes (libyaml, YAML 1.1) reads them, nothing is
written when a rule or a version refuses, and writers in different processes
never lose each other's changes."""

from __future__ import annotations

import datetime
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.worker.config_file import (
    BadEdit,
    ConfigFile,
    Conflict,
    ReadOnly,
    Rules,
    Unusable,
    jsonable,
    unknown_key,
)

COMMENTED = """\
# my settings
model:
  default: m1   # the local one
agent:
  max_turns: 30
toolsets:
  - hermes-cli
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "config.yaml"
    p.write_text(COMMENTED)
    return p


def test_reading_gives_the_mapping_and_the_sha256_of_the_bytes(path: Path) -> None:
    snap = ConfigFile(path).read()
    assert snap.config == yaml.safe_load(COMMENTED)
    assert snap.version == hashlib.sha256(COMMENTED.encode()).hexdigest()


def test_no_file_reads_as_empty_and_a_write_makes_a_private_one(tmp_path: Path) -> None:
    config = ConfigFile(tmp_path / "config.yaml")
    assert config.read() == ({}, None)
    snap, warnings = config.write([(["agent", "max_turns"], 5)], None)
    assert snap.config == {"agent": {"max_turns": 5}} == yaml.safe_load(config.path.read_text())
    assert (config.path.stat().st_mode & 0o777, warnings) == (0o600, [])


@pytest.mark.parametrize(
    "content", ["a: [unclosed\n", "- a list\n", b"\xff\xfe: 1\n"], ids=["syntax", "list", "bytes"]
)
def test_a_file_hermes_cannot_use_is_unusable_and_never_overwritten(
    path: Path, content: str | bytes
) -> None:
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    config = ConfigFile(path)
    with pytest.raises(Unusable):
        config.read()
    with pytest.raises(Unusable):
        config.write([(["a"], 1)], None)
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())


def test_a_fifo_is_unusable_without_waiting_for_a_writer(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(Unusable, match="not a regular file"):
        ConfigFile(path).read()


def test_edits_keep_comments_order_and_untouched_values(path: Path) -> None:
    config = ConfigFile(path)
    snap, _ = config.write(
        [
            (["agent", "max_turns"], 90),
            (["display", "skin"], {"name": "ares", "colors": ["red", 1]}),
            (["model", "default"], None),
            (["nowhere", "deep"], None),  # removing what is not there changes nothing
        ],
        config.read().version,
    )
    text = path.read_text()
    assert text.startswith("# my settings\nmodel: {}\n")  # a removed key takes its comment
    assert "max_turns: 90" in text and "toolsets:\n  - hermes-cli" in text
    assert snap.config == yaml.safe_load(text)
    assert snap.config == {
        "model": {},
        "agent": {"max_turns": 90},
        "toolsets": ["hermes-cli"],
        "display": {"skin": {"name": "ares", "colors": ["red", 1]}},
    }
    assert snap.version == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "value", ["yes", "off", "~", "null", "017", "1_000", "1:20", "3.0", "2026-01-01", ".inf"]
)
def test_a_string_yaml_11_would_read_as_another_type_stays_a_string(path: Path, value: str) -> None:
    ConfigFile(path).write([(["display", "name"], value), (["list"], [value])], None)
    text = path.read_text()
    assert text.startswith("# my settings")  # written round trip, not plainly
    now = yaml.load(text, Loader=yaml.CSafeLoader)  # as hermes reads it
    assert (now["display"]["name"], now["list"]) == (value, [value])


def test_what_ruamel_cannot_read_but_hermes_can_is_written_plainly_and_means_the_same(
    path: Path,
) -> None:
    path.write_text("# lost\nagent:\n  max_turns:\t30\n")  # a tab libyaml takes
    snap, _ = ConfigFile(path).write([(["agent", "verbose"], True)], None)
    assert yaml.safe_load(path.read_text()) == snap.config
    assert snap.config == {"agent": {"max_turns": 30, "verbose": True}}


def test_a_version_that_is_not_the_files_is_a_conflict_and_writes_nothing(path: Path) -> None:
    with pytest.raises(Conflict) as err:
        ConfigFile(path).write([(["a"], 1)], "0" * 64)
    assert err.value.current == hashlib.sha256(COMMENTED.encode()).hexdigest()
    assert path.read_text() == COMMENTED


def test_a_key_below_a_value_that_is_not_a_mapping_is_a_bad_edit(path: Path) -> None:
    with pytest.raises(BadEdit) as err:
        ConfigFile(path).write([(["a"], 1), (["model", "default", "x"], 1)], None)
    assert (err.value.index, str(err.value)) == (1, "model.default is not a mapping")
    assert path.read_text() == COMMENTED


def rules(**kw: Any) -> Rules:
    return Rules(**kw)


@pytest.mark.parametrize(
    "key_path", [["agent", "max_turns"], ["agent"], ["agent", "max_turns", "deeper"]]
)
def test_a_key_at_above_or_below_a_managed_one_is_read_only(
    path: Path, key_path: list[str]
) -> None:
    config = ConfigFile(path, rules(managed=lambda: {"agent": {"max_turns": 5}}))
    with pytest.raises(ReadOnly) as err:
        config.write([(["model", "default"], "m2"), (key_path, 9)], None)
    assert err.value.key_path == key_path
    assert path.read_text() == COMMENTED
    config.write([(["agent", "verbose"], True)], None)  # its neighbour is the user's


def test_a_locked_install_refuses_every_write_and_a_secret_key_is_a_bad_edit(
    path: Path,
) -> None:
    with pytest.raises(ReadOnly) as err:
        ConfigFile(path, rules(read_only=lambda: "Homebrew")).write([(["a"], 1)], None)
    assert err.value.key_path is None and "Homebrew" in str(err.value)
    secret = ConfigFile(path, rules(secret_key=lambda key: key.endswith("_API_KEY")))
    with pytest.raises(BadEdit):
        secret.write([(["OPENAI_API_KEY"], "sk-1")], None)
    secret.write([(["model", "OPENAI_API_KEY"], "x")], None)  # only a top-level key is one
    assert path.read_text().startswith("# my settings")


def test_hermes_word_on_an_unknown_key_is_a_warning() -> None:
    known = {"agent.max_turns"}

    def validate(key: str) -> tuple[bool, str | None]:
        return key in known, "agent.max_turns" if key.startswith("agent.") else None

    warn = unknown_key(validate)
    assert warn("agent.max_turns") is None
    assert warn("agent.max_turn") == (
        "agent.max_turn is not a setting hermes knows; did you mean agent.max_turns?"
    )
    assert warn("zzz") == "zzz is not a setting hermes knows"


def test_writers_in_different_processes_lose_no_change(path: Path) -> None:
    # Two ConfigFiles share no lock in memory: as two workers of one profile.
    def add(prefix: str) -> None:
        config = ConfigFile(path)
        for i in range(25):
            config.write([(["keys", f"{prefix}{i}"], i)], None)

    threads = [threading.Thread(target=add, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    keys = yaml.safe_load(path.read_text())["keys"]
    assert sorted(keys) == sorted(f"{p}{i}" for p in "ab" for i in range(25))


def test_values_yaml_has_and_json_lacks_become_strings() -> None:
    parsed = {1: datetime.date(2026, 12, 5), "x": [float("nan"), float("inf"), b"ok"]}
    assert jsonable(parsed) == {"1": "2026-12-05", "x": ["nan", "inf", "ok"]}


def test_a_setting_nesting_too_deeply_for_hermes_reader_is_a_bad_edit(path: Path) -> None:
    deep: Any = 1
    for _ in range(2000):  # deeper than Python's recursion limit
        deep = [deep]
    config = ConfigFile(path)
    for key_path, value in ((["a"], deep), (["k"] * 65, 1), (["a"] * 62, [[{"b": 1}]])):
        with pytest.raises(BadEdit, match="levels deep"):
            config.write([(key_path, value)], None)
    assert path.read_text() == COMMENTED
    config.write([(["a"] * 61, [[{"b": 1}]])], None)  # 64: as deep as may be


def test_only_a_key_written_gets_hermes_word_on_it(path: Path) -> None:
    config = ConfigFile(path, rules(unknown=lambda key: f"{key}?"))
    _, warnings = config.write([(["agent", "max_turn"], 1), (["agent", "gone"], None)], None)
    assert warnings == ["agent.max_turn?"]


@pytest.mark.parametrize(
    "value",
    [
        "\x00", "\x85", "caf\u00e9\x85", "a\u2028b", "\x1b[31m", "\ufeff", "\t", " lead",
        "a\r\nb", "#x", "&a", "*a", "!t", "%x", "@x", "- x", "[", "{", "|", ">", ": x",
        "a #b", "\\", 1e-05, 1e20, -1e-300, 5e-324, -0.0, [1e16, {"x": "\x85"}],
    ],
)  # fmt: skip
def test_any_json_value_is_written_with_the_comments_kept_and_read_back_by_hermes_the_same(
    path: Path, value: Any
) -> None:
    ConfigFile(path).write([(["display", "k"], value)], None)
    text = path.read_text()
    assert text.startswith("# my settings\n")
    assert yaml.load(text, Loader=yaml.CSafeLoader)["display"]["k"] == value
