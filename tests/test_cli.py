"""The command line: usage errors exit 64, never argparse's 2; nothing prints a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo, run_cli
from planegate import __version__
from planegate.cli import main


@pytest.mark.parametrize(
    "argv",
    [["gate"], ["frobnicate"], ["gate", "--base", "main", "--format", "xml"], []],
)
def test_usage_errors_exit_64(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 64
    err = capsys.readouterr().err
    assert err.startswith("planegate")
    assert "Traceback" not in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"planegate {__version__}"


def test_explain_rule_and_exit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "PG201"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PG201 (inventory, exit 2): unclassified nodeid")
    assert main(["explain", "3"]) == 0
    assert capsys.readouterr().out.startswith("exit 3 (evidence):")
    assert main(["explain", "PG999"]) == 64


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("-C", str(tmp_path), "gate", "--base", "main")
    assert done.returncode == 64
    assert done.stderr.strip().endswith(
        "not a git repository (run planegate inside one, or pass -C PATH)"
    )


def test_unknown_revision_is_a_usage_error(project: TestRepo) -> None:
    done = run_cli("-C", str(project.root), "gate", "--base", "no-such-branch")
    assert done.returncode == 64
    assert "unknown revision 'no-such-branch'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_corrupt_repository_is_a_one_line_service_error(project: TestRepo) -> None:
    project.branch("patch")
    project.commit("docs", {"README": "x\n"})
    blob = project.git("rev-parse", "HEAD:calc/core.py")
    (project.root / ".git/objects" / blob[:2] / blob[2:]).unlink()
    done = run_cli("-C", str(project.root), "gate", "--base", "main", "-q")
    assert done.returncode == 69
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("planegate: exporting the tree of ")
    assert "an object is missing or corrupt" in line
