"""The command line: usage errors exit 64, never argparse's 2; nothing prints a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from helpers.github_support import finding, report_of
from helpers.repo_helper import TestRepo, run_cli
from planegate import __version__
from planegate.cli import SUBPARSERS, build_parser, main
from planegate.report import text
from planegate.report.text import colour_wanted


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


def test_a_mistyped_command_or_option_names_the_closest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gat"]) == 64
    assert "unknown command 'gat'; did you mean 'gate'?" in capsys.readouterr().err
    assert main(["gate", "--bse", "main"]) == 64
    assert "unknown option --bse; did you mean '--base'?" in capsys.readouterr().err
    assert main(["gate", "--base", "main", "--format", "jsn"]) == 64
    assert "did you mean 'json'?" in capsys.readouterr().err


def test_every_option_and_argument_has_help() -> None:
    build_parser()
    missing = [
        f"{name} {action.dest}"
        for name, parser in SUBPARSERS.items()
        for action in parser._actions
        if not action.help and action.dest != "help"
    ]
    assert missing == []


def test_action_outside_github_actions_is_a_usage_error_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("INPUT_PHASE", raising=False)
    assert main(["action"]) == 64
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "runs inside GitHub Actions" in captured.err and "::" not in captured.err


def test_a_missing_configuration_says_whether_it_is_only_uncommitted(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit("main", {"a.txt": "1\n"})
    repo.branch("patch")
    repo.commit("patch", {"a.txt": "2\n"})

    absent = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert absent.returncode == 78
    assert "planegate init --write" in absent.stderr and "not committed" not in absent.stderr

    (repo.root / "planegate.yml").write_text("version: 1\n")
    uncommitted = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert uncommitted.returncode == 78
    assert "not committed yet" in uncommitted.stderr
    assert "git add planegate.yml && git commit" in uncommitted.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert colour_wanted(Tty(), {}) is True
    assert colour_wanted(Tty(), {"NO_COLOR": "1"}) is False
    assert colour_wanted(io.StringIO(), {}) is False
    assert colour_wanted(io.StringIO(), {"FORCE_COLOR": "1"}) is True
    assert colour_wanted(None, {}) is False  # `--output FILE`: never a terminal
    assert colour_wanted(None, {"FORCE_COLOR": "1"}) is True
    report = report_of([finding(1)])
    assert "\x1b[31m" in text.render(report, color=True)
    plain = text.render(report, color=False)
    assert "\x1b[" not in plain
    assert "1 failing finding\n" in plain and "[failed] evidence (exit 3)" in plain
    assert "[passed] inventory\n" in plain
