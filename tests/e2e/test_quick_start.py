"""The quick start on a fresh repository, as the README tells it: `init` before the first
commit says what to do; after one commit with a Hypothesis test and a golden test, `init
--write`, `lock`, commit, `digest`, and an honest patch passes the gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.config import load as config

PROJECT = {
    ".gitignore": "/planegate-digest.json\n",
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shop/__init__.py": "",
    "shop/price.py": "def total(items):\n    return sum(items)\n",
    "tests/test_props.py": "from hypothesis import given, strategies as st\n\n"
    "from shop.price import total\n\n\n@given(st.lists(st.integers()))\n"
    "def test_total_is_sum(xs):\n    assert total(xs) == sum(xs)\n",
    "tests/test_golden.py": "from pathlib import Path\n\nfrom shop.price import total\n\n"
    "GOLDEN = Path(__file__).parent / 'golden' / 'total.txt'\n\n\n"
    "def test_total_golden():\n    assert str(total([1, 2, 3])) == GOLDEN.read_text().strip()\n",
    "tests/golden/total.txt": "6\n",
}


def cli(repo: TestRepo, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["-C", str(repo.root), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_quick_start_on_a_fresh_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "shop")
    code, _, err = cli(repo, capsys, "init", "-q")
    assert (code, err.count("\n")) == (64, 1)
    assert "has no commit yet" in err and "git add -A && git commit" in err

    repo.commit("shop and its tests", PROJECT)
    code, _, err = cli(repo, capsys, "init", "--write", "-q")
    assert code == 0, err
    proposed = config.parse((repo.root / "planegate.yml").read_bytes(), "planegate.yml")
    assert proposed.planes["property"].paths == ("tests/test_props.py",)
    assert proposed.planes["fixture"].paths == ("tests/test_golden.py",)
    assert "tests/golden/" in " ".join(proposed.planes["fixture"].data)
    assert cli(repo, capsys, "lock", "-q")[0] == 0
    repo.commit("planegate: planes and locks")
    assert cli(repo, capsys, "digest", "-q")[0] == 0

    repo.branch("honest")
    repo.commit("comment", {"shop/price.py": "# prices in cents\n" + PROJECT["shop/price.py"]})
    gate = ["gate", "--base", "main", "-q", "--format", "json"]
    code, out, _ = cli(repo, capsys, *gate, "--digest", "planegate-digest.json")
    report = json.loads(out)
    assert code == 0, report
    assert report["exit_code"] == 0
    assert report["digest_source"].endswith("; matches git at the base tip")
