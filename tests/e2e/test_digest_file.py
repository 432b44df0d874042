"""The digest `planegate digest` leaves in the work tree: a local `gate` without `--digest`
never reads it unasked (anything run in the work tree can write that path) but says how to use
it; `--digest` uses it; and it is never taken for a data file of the fixture plane."""

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


def test_the_base_tips_digest_in_the_work_tree_is_named_not_read_unasked(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    base = shop.git("rev-parse", "main")
    code, report = gate(shop, capsys)
    assert code == 0, report
    assert report["digest_source"] == (
        f"recomputed from git at the base tip {base[:12]}; planegate-digest.json in the work "
        "tree is a digest of the base tip: pass `--digest planegate-digest.json` to use it "
        "(it is not read unasked)"
    )
    argv = ["-C", str(shop.root), "gate", "--base", "main", "--format", "json", "-q"]
    code = main([*argv, "--digest", str(shop.root / "planegate-digest.json")])
    used = json.loads(capsys.readouterr().out)
    assert code == 0, used
    assert used["digest_source"].endswith(f"(commit {base[:12]}); matches git at the base tip")


def test_a_digest_forged_in_the_work_tree_cannot_excuse_a_regression(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a test run of the patch in this work tree could write: main's run claiming the
    golden test failed on main too. Without `--digest` it is never read: the bug is the
    patch's (exit 1), not main's (exit 6)."""
    digest = shop.root / "planegate-digest.json"
    forged = json.loads(digest.read_text())
    assert forged["run"] is not None
    golden = "tests/test_golden.py::test_total_golden"
    forged["run"]["not_passed"] = {golden: {"outcome": "failed", "message": "assert 5 == 6"}}
    digest.write_text(json.dumps(forged))
    shop.checkout("main")
    shop.branch("bug")
    shop.commit("off by one", {"shop/price.py": PRICE.replace("sum(items)", "sum(items) - 1")})
    code, report = gate(shop, capsys)
    assert code == 1, report
    assert "not read unasked" in report["digest_source"]


def test_a_digest_in_the_work_tree_that_git_would_refuse_is_not_even_read(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read, a digest whose hashes git refutes stops the gate (65); unasked, it is not read."""
    digest = shop.root / "planegate-digest.json"
    tampered = json.loads(digest.read_text())
    tampered["files"]["planegate.yml"] = "0" * 64
    digest.write_text(json.dumps(tampered))
    code, report = gate(shop, capsys)
    assert code == 0, report
    assert report["digest_source"].startswith("recomputed from git at the base tip")
    argv = ["-C", str(shop.root), "gate", "--base", "main", "-q", "--digest", str(digest)]
    assert main(argv) == 65
    capsys.readouterr()


def test_a_digest_of_another_commit_gets_no_hint(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    shop.checkout("main")
    shop.commit("readme", {"README.md": "shop\n"})
    tip = shop.git("rev-parse", "main")
    shop.checkout("honest")
    code, report = gate(shop, capsys)
    assert code == 0, report
    assert report["digest_source"] == f"recomputed from git at the base tip {tip[:12]}"


def test_a_digest_the_patch_commits_is_not_used(
    shop: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = shop.root / "planegate-digest.json"
    shop.git("add", "--force", digest.name)
    shop.commit("the patch commits a digest")
    code, report = gate(shop, capsys)
    assert report["digest_source"].startswith("recomputed from git at the base tip")
    assert "--digest" not in report["digest_source"]  # no hint to use a file the patch made
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


def test_a_digest_whose_main_cannot_collect_here_says_why_and_what_follows(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # main's tests import what this environment lacks: pytest stops at collection, and main's
    # run tells nothing a gate could use
    project.commit("needs", {"tests/fix/test_needs.py": "import not_installed_here\n"})
    assert main(["-C", str(project.root), "digest"]) == 0
    out, err = capsys.readouterr()
    assert "main's run not recorded (gates run the base's side themselves)" in out
    assert (
        "main's run is not recorded: pytest stopped at collection errors, so no test ran: "
        "tests/fix/test_needs.py: ModuleNotFoundError: No module named 'not_installed_here'"
    ) in err


def test_a_module_the_build_writes_and_git_does_not_hold_is_named(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # setuptools-scm's version file: in the checkout, ignored by git, imported by the package
    files = {
        "calc/__init__.py": "from calc._version import version\n",
        ".gitignore": "_version.py\n",
    }
    project.commit("a generated version", files)
    (project.root / "calc" / "_version.py").write_text("version = '1.0'\n")
    assert main(["-C", str(project.root), "digest", "-q"]) == 78
    err = capsys.readouterr().err
    assert "No module named 'calc._version'" in err
    assert "calc/_version.py is in your checkout but not in git (a file your build writes?)" in err
