"""The command line: usage errors exit 64, never argparse's 2; nothing prints a traceback."""

from __future__ import annotations

import io

import pytest

from helpers.github_support import finding, report_of
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


def test_a_mistyped_command_or_option_names_the_closest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gat"]) == 64
    assert "unknown command 'gat'; did you mean 'gate'?" in capsys.readouterr().err
    assert main(["gate", "--bse", "main"]) == 64
    assert "unknown option --bse; did you mean '--base'?" in capsys.readouterr().err
    assert main(["gate", "--base", "main", "--format", "jsn"]) == 64
    assert "did you mean 'json'?" in capsys.readouterr().err


def test_a_mistyped_command_is_named_before_its_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gaet", "--base", "main"]) == 64
    err = capsys.readouterr().err
    assert "unknown command 'gaet'; did you mean 'gate'?" in err
    assert "--base" not in err
    assert main(["-C", ".", "gaet", "--base", "main"]) == 64
    assert "did you mean 'gate'?" in capsys.readouterr().err


def test_an_unknown_choice_keeps_the_list_of_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", "--base", "main", "--format", "xml"]) == 64
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "unknown choice for --format 'xml' (choose from text, json, sarif)" in line


def test_help_ends_with_examples_exit_codes_and_where_the_docs_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from planegate import exitcodes, urls

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    epilog = out[out.index("examples:") :]
    assert "planegate gate --base main" in epilog
    for entry in exitcodes.EXIT_CODES:
        assert f"{entry.code:>3}  {entry.name} " in epilog
    assert epilog.rstrip().endswith(f"documentation: {urls.DOCS}")
    assert urls.DOCS.startswith("https://")


def test_explain_points_at_a_url_not_a_checkout_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "PG301"]) == 0
    more = capsys.readouterr().out.strip().splitlines()[-1]
    assert more == "more: https://github.com/planegate/planegate/blob/main/docs/findings.md#pg301"


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
