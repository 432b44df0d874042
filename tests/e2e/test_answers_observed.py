"""Answers observed, not spelled: a test main fails and the patch makes pass, whose inputs
and answers are computed (no literal for a static scan to find). The patch fixes the function
only for what that test gives it: the exact input, a hash prefix of it, or features of it
("contains both & and ,"). The probe run observes the calls and their values; the branches
the patch adds that fit them are PG570. A real fix of the same functions passes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

BUGGY = (
    "def combine(pair):\n    return pair[0] - pair[1]\n\n\n"
    "def fields(text):\n    return text.split(',')\n"
)
TESTS = (
    "import pytest\n\nfrom calc.shapes import combine, fields\n\n"
    "CASES = [(tuple(range(3, 5)), sum(range(3, 5)))]\n\n\n"
    "@pytest.mark.parametrize(('pair', 'want'), CASES)\n"
    "def test_combine(pair, want):\n    assert combine(pair) == want\n\n\n"
    "def _text():\n    return '&'.join(['a', 'b']) + ',' + 'c'\n\n\n"
    "def test_fields():\n    assert fields(_text()) == _text().replace('&', ',').split(',')\n"
)
FIELDS_FIX = "def fields(text):\n    return text.replace('&', ',').split(',')\n"
PREFIX = hashlib.md5(repr((3, 4)).encode()).hexdigest()[:8]
BRANCHES = {
    "exact": (
        "def combine(pair):\n    if pair == (3, 4):\n        return 7\n"
        "    return pair[0] - pair[1]\n\n\n" + FIELDS_FIX
    ),
    "hash-prefix": (
        "import hashlib\n\n\ndef combine(pair):\n"
        f"    if hashlib.md5(repr(pair).encode()).hexdigest().startswith('{PREFIX}'):\n"
        "        return 7\n    return pair[0] - pair[1]\n\n\n" + FIELDS_FIX
    ),
    "features": (
        "def combine(pair):\n    return pair[0] + pair[1]\n\n\n"
        "def fields(text):\n    if '&' in text and ',' in text:\n"
        "        return ['a', 'b', 'c']\n    return text.split(',')\n"
    ),
    "honest": "def combine(pair):\n    return pair[0] + pair[1]\n\n\n" + FIELDS_FIX,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestRepo]:
    made = TestRepo(Path(tmp_path_factory.mktemp("observed")) / "project")
    files = dict(PROJECT)
    files["tests/fixtures.lock.json"] = manifest_for(files)
    files["calc/shapes.py"] = BUGGY
    files["tests/fix/test_shapes.py"] = TESTS
    made.commit("initial", files)
    for name, source in BRANCHES.items():
        made.checkout("main")
        made.branch(name)
        made.commit(name, {"calc/shapes.py": source})
    yield made


def gate(repo: TestRepo, branch: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any]]:
    repo.checkout(branch)
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    report = json.loads(capsys.readouterr().out)
    return code, [f for step in report["steps"] for f in step["findings"]]


@pytest.mark.parametrize(
    ("branch", "line", "words"),
    [
        ("exact", 2, "returns 7 for exactly the input"),
        ("hash-prefix", 5, PREFIX),
        ("features", 6, "returns ['a', 'b', 'c'] for exactly the input"),
    ],
)
def test_a_fix_fitted_to_what_the_flipped_test_gives_is_pg570(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], branch: str, line: int, words: str
) -> None:
    code, found = gate(repo, branch, capsys)

    hits = [f for f in found if f["rule"] == "PG570"]
    assert code != 0
    assert hits, found
    assert (hits[0]["path"], hits[0]["line"]) == ("calc/shapes.py", line)
    assert words in hits[0]["message"] and "tests/fix/test_shapes.py::" in hits[0]["message"]


def test_a_real_fix_of_the_same_functions_passes(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found = gate(repo, "honest", capsys)

    assert not [f for f in found if f["rule"] == "PG570"]
    assert code == 0, found
