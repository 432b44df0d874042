"""The digest `planegate digest` leaves in the work tree: a local `gate` without `--digest`
uses it when it is the base tip's digest and says so; one of another commit is ignored with a
note; and it is never taken for a data file of the fixture plane."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

PRICE = "def total(items):\n    return sum(items)\n"
PROJECT = {
    ".gitignore": "/planegate-digest.json\n",
    "planegate.yml": "version: 1\nplanes:\n  property:\n    paths: ['tests/test_props.py']\n"
    "  fixture:\n    paths: ['tests/test_golden.py']\n    data: ['*.json']\n",
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shop/__init__.py": "",
    "shop/price.py": PRICE,
    "tests/test_props.py": "from hypothesis import given, strategies as st\n\n"
    "from shop.price import total\n\n\n@given(st.lists(st.integers()))\n"
    "def test_total_is_sum(xs):\n    assert total(xs) == sum(xs)\n",
    "tests/test_golden.py": "import json\nfrom pathlib import Path\n\n"
    "from shop.price import total\n\n\ndef test_total_golden():\n"
    "    golden = json.loads((Path(__file__).parent / 'total.json').read_text())\n"
    "    assert total([1, 2, 3]) == golden\n",
    "tests/total.json": "6\n",
}


def cli(repo: TestRepo, capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    code = main(["-C", str(repo.root), *argv])
    capsys.readouterr()
    return code


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def shop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> TestRepo:
    """main locked and committed, its digest written by `planegate digest` (default path),
    and an honest patch on the branch `honest`."""
    repo = TestRepo(tmp_path / "shop")
    repo.commit("shop", PROJECT)
    assert cli(repo, capsys, "lock", "-q") == 0
    repo.commit("planegate: locks")
    assert cli(repo, capsys, "digest", "-q") == 0
    repo.branch("honest")
    repo.commit("comment", {"shop/price.py": "# prices in cents\n" + PRICE})
    return repo


def test_the_base_tips_digest_in_the_work_tree_is_used_and_named(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    base = shop.git("rev-parse", "main")
    code, report = gate(shop, capsys)
    assert code == 0, report
    assert report["digest_source"].startswith(
        f"planegate-digest.json in the work tree (commit {base[:12]}); matches git at the base tip"
    )


def test_a_digest_of_another_commit_is_ignored_with_a_note(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    old = shop.git("rev-parse", "main")
    shop.checkout("main")
    shop.commit("readme", {"README.md": "shop\n"})
    tip = shop.git("rev-parse", "main")
    shop.checkout("honest")
    code, report = gate(shop, capsys)
    assert code == 0, report
    assert report["digest_source"] == (
        f"recomputed from git at the base tip {tip[:12]}; planegate-digest.json in the work "
        f"tree is the digest of {old[:12]}, not of the base tip: ignored (`planegate digest` "
        "on the base writes the one the gate uses)"
    )


def test_a_digest_the_patch_commits_is_not_used(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = shop.root / "planegate-digest.json"
    shop.git("add", "--force", digest.name)
    shop.commit("the patch commits a digest")
    code, report = gate(shop, capsys)
    assert report["digest_source"].endswith(
        "; planegate-digest.json is tracked by git, not the one `planegate digest` wrote: ignored"
    )
    assert code != 0  # the patch added a file matching the fixture plane's data patterns


def test_the_digest_file_is_never_locked_as_data(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    shop.checkout("main")
    assert (shop.root / "planegate-digest.json").is_file()
    assert cli(shop, capsys, "lock", "-q") == 0
    manifest = json.loads((shop.root / "tests/fixtures.lock.json").read_text())
    assert sorted(manifest["files"]) == ["tests/total.json"]
    assert shop.git("status", "--porcelain") == ""
