"""The pure parts of new-test classification: what the head's rows are, which files are added
test files, how a new file's nodeids are classified, and which login GitHub verified."""

from __future__ import annotations

from typing import Any

import pytest

from planegate.config import load as config_mod
from planegate.config.classify import head_rows
from planegate.config.planemap import NewFilesMap, PlaneMap
from planegate.github.commit_people import login_in
from planegate.repo.gitdiff import Change
from planegate.steps.new_tests import added_test_files, rows_to_add, suggested_plane

BASE = b"""\
version: 1
planes:
  property: {paths: ["tests/prop/"]}
  fixture:
    paths: ["tests/"]   # main's tests
    nodeids: ["tests/test_a.py::test_one"]
pytest: {timeout: 60}
"""


HEAD = b"""\
version: 1
planes:
  property:
    nodeids: [tests/test_p.py]
    paths:
      - tests/prop/
  fixture:
    paths: ["tests/"]
    nodeids:
      - "tests/test_a.py::test_one"
      - tests/test_new.py
pytest:
  timeout: 60
"""


def test_rows_added_in_any_layout_are_the_heads_only_change() -> None:
    rows = head_rows(BASE, HEAD, "planegate.yml")
    assert rows.other == ""
    assert dict(rows.rows) == {"property": ("tests/test_p.py",), "fixture": ("tests/test_new.py",)}


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        ((b"timeout: 60", b"timeout: 61"), "changes more than the planes' nodeids"),
        ((b'nodeids: ["tests/test_a.py::test_one"]', b"nodeids: []"), "removes or reorders"),
        ((b"version: 1", b"version: 2"), "does not load"),
    ],
)
def test_anything_else_the_head_changes_is_named(edit: tuple[bytes, bytes], why: str) -> None:
    assert why in head_rows(BASE, BASE.replace(*edit), "planegate.yml").other


def test_added_test_files_follow_the_bases_python_files() -> None:
    changes = [
        Change("tests/test_new.py", "A"),
        Change("tests/new_test.py", "A"),
        Change("tests/helper.py", "A"),
        Change("tests/test_old.py", "M"),
        Change("tests/test_moved.py", "R", "tests/test_was.py"),
        Change("tests/conftest.py", "A"),
    ]
    assert added_test_files(changes, {}) == ("tests/new_test.py", "tests/test_new.py")
    assert added_test_files(changes, {"python_files": "check_*.py helper.py"}) == (
        "tests/helper.py",
    )


def test_a_new_files_tests_are_classified_only_by_entries_naming_them() -> None:
    cfg = config_mod.parse(BASE, "planegate.yml")
    assert PlaneMap(cfg).plane_of("tests/test_new.py::test_x") == "fixture"  # a path pattern
    new = NewFilesMap(cfg, frozenset(), frozenset({"tests/test_new.py"}))
    assert new.plane_of("tests/test_new.py::test_x") == "unclassified"
    assert new.plane_of("tests/test_a.py::test_two") == "fixture"  # main's: as before
    listed = config_mod.parse(
        BASE.replace(b'::test_one"', b'::test_one", "tests/test_new.py"'), "p.yml"
    )
    new = NewFilesMap(listed, frozenset(), frozenset({"tests/test_new.py"}))
    assert new.plane_of("tests/test_new.py::TestC::test_x[1]") == "fixture"  # the file's entry


def test_the_suggested_plane_is_property_only_when_every_test_uses_given() -> None:
    given = "from hypothesis import given\n\n@given(x=1)\ndef test_a(x):\n    pass\n"
    assert suggested_plane(given) == "property"
    assert suggested_plane(given + "\ndef test_b():\n    pass\n") == "fixture"
    assert suggested_plane(None) == "fixture"


def test_the_rows_to_add_are_yaml_that_loads_to_the_entries() -> None:
    from planegate.config.classify import Classification

    found = Classification(files=("tests/te st\u00e9.py", "tests/test_p.py"))
    sources = {"tests/test_p.py": "@given(x=1)\ndef test_p(x):\n    pass\n"}
    lines = rows_to_add(found, None, sources)
    document = "version: 1\n" + "\n".join(lines) + "\n"
    cfg = config_mod.parse(document, "planegate.yml")
    assert cfg.planes["fixture"].nodeids == ("tests/te st\u00e9.py",)
    assert cfg.planes["property"].nodeids == ("tests/test_p.py",)


def _commit(author: str | None, committer: str | None, verified: Any) -> dict[str, Any]:
    return {
        "commit": {"verification": {"verified": verified}},
        "author": {"login": author} if author else None,
        "committer": {"login": committer} if committer else None,
    }


@pytest.mark.parametrize(
    ("raw", "login"),
    [
        (_commit("alice", "alice", True), "alice"),
        (_commit("alice", "web-flow", True), "alice"),
        (_commit("alice", "bob", True), "bob"),  # the key's owner made it
        (_commit("alice", "alice", False), None),
        (_commit("alice", "alice", "true"), None),
        (_commit(None, "web-flow", True), None),
        (_commit("alice", None, True), None),
        (_commit("coder[bot]", "web-flow", True), None),
        (_commit("coder[bot]", "alice", True), None),  # an agent named as the author
        ({"commit": None}, None),
        ([], None),
    ],
)
def test_only_a_verified_login_no_agent_pattern_names_is_a_person(
    raw: Any, login: str | None
) -> None:
    assert login_in(raw, ("*[bot]",)) == login
