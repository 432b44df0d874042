"""The hunks step's rules on what the kernel saw of the test run (exit 5); hunks.py holds the
rest of the step's rules."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG565",
        Step.HUNKS,
        "a locked file was opened where the audit hook cannot see",
        "While the scoring tests ran, the kernel (inotify, watched by the gate outside the "
        "sandbox) counted more opens of a locked file (a test file of main's or a fixture "
        "manifest's file) than the test session's audit hook saw from any frame: a process "
        "the test session started, or C code, read it, however it was started (a start no "
        "audit event shows included). An error when main's run in the digest shows fewer "
        "such opens of that file; a warning for the plane's owner when main's run holds no "
        "count, or when the counts are unknown (the kernel's event queue overflowed); quiet "
        "when main's run shows as many.",
        "Compute the result in the production code; a test that runs a program on its own "
        "data does so on main first.",
    ),
)
