"""A test that fails every run in the gate's environment but passes under plain pytest in the
working tree is an environment difference: the sweep proposes an `env` freeze with that
evidence instead of calling the base broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
  freeze:
    owner: "@org/flakes"
    max_fraction: 0.5
pytest:
  plugins: []
"""
GENERATED = "tests/fix/test_generated.py::test_version_is_generated"
BROKEN = "tests/fix/test_broken.py::test_broken"


def test_an_untracked_generated_file_makes_an_env_proposal_not_a_broken_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit(
        "suite",
        {
            "planegate.yml": CONFIG,
            ".gitignore": "_version.py\n",
            "tests/fix/test_ok.py": "def test_ok():\n    assert True\n",
            "tests/fix/test_generated.py": (
                "def test_version_is_generated():\n"
                "    import _version\n\n    assert _version.VERSION == '1.0'\n"
            ),
            "tests/fix/test_broken.py": "def test_broken():\n    assert 1 == 2\n",
        },
    )
    (repo.root / "_version.py").write_text("VERSION = '1.0'\n")  # what a build step generates
    code = main(["-C", str(repo.root), "sweep", "--seed", "7", "-q"])
    out, err = capsys.readouterr()
    assert code == 6, out  # the really broken test still breaks the base
    assert "`planegate sweep --broken-here` proposes an `env` freeze" in err  # the way out
    assert f"base broken: {BROKEN} failed every run, and alone" in out
    assert f"base broken: {GENERATED}" not in out
    assert f"propose freeze {GENERATED}: env (confidence 0.90), failed 3/3" in out
    proposals = (repo.root / ".planegate" / "proposals.jsonl").read_text("utf-8").splitlines()
    (event,) = [json.loads(line) for line in proposals]
    assert event["nodeid"] == GENERATED and event["flake_class"] == "env"
    assert "passes under plain `python -m pytest` in the working tree" in event["note"]
