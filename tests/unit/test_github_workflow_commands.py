"""Workflow commands: escaping that round-trips and never lets a newline through."""

from __future__ import annotations

from helpers.github_support import finding
from planegate.findings import Severity
from planegate.report.workflow_commands import finding_command


def test_finding_command_names_rule_owner_and_fix() -> None:
    line = finding_command(finding(12, severity=Severity.WARNING, message="50% done\nnext"))
    assert line.startswith("::warning file=tests/test_money.py,line=12,title=PG301 · @octo/qa::")
    assert "50%25 done%0Anext Fix: Revert" in line
