"""Warnings that only repeat main's own behaviour are folded into one notice per rule and
step, every place in the step's notes; errors of the same rules stay as they are."""

from __future__ import annotations

from planegate.findings import Finding, Severity, Step
from planegate.report import Report, StepResult
from planegate.report.mains_own import quiet


def sign(rule: str, where: str, severity: Severity = Severity.WARNING) -> Finding:
    return Finding(rule, Step.PLANES, severity, f"{rule} at {where}", path=where, owner="@o/p")


def report(*findings: Finding) -> Report:
    steps = (StepResult(Step.PLANES, findings, ("ran",)),)
    return Report("a" * 40, "b" * 40, "c" * 40, True, "git", steps)


def test_many_warnings_of_one_rule_become_one_notice_and_a_note() -> None:
    places = [f"tests/fix/data/{n}.md" for n in range(5)]
    folded = quiet(report(*(sign("PG562", p) for p in places))).steps[0]
    (notice,) = folded.findings
    assert notice.severity is Severity.NOTICE and notice.rule == "PG562"
    assert notice.message.startswith(
        "5 signs repeat main's own behaviour, as main's run shows it (tests/fix/data/0.md, "
        "tests/fix/data/1.md, tests/fix/data/2.md and 2 more); the first: PG562 at "
    )
    assert folded.notes == ("ran", "main's own behaviour (PG562, 5): " + ", ".join(places))


def test_errors_of_the_same_rules_and_other_warnings_stay() -> None:
    error = sign("PG562", "tests/fix/data/label.txt", Severity.ERROR)
    other = sign("PG111", "tests/test_x.py")
    single = sign("PG112", "calc/core.py")
    folded = quiet(report(error, other, single)).steps[0]
    assert folded.findings[:2] == (error, other)
    assert folded.findings[2].severity is Severity.NOTICE
    assert folded.findings[2].message == single.message


def test_a_report_without_them_is_unchanged() -> None:
    plain = report(sign("PG101", "tests/test_x.py", Severity.ERROR))
    assert quiet(plain) == plain


def test_values_that_lie_on_main_too_are_folded_like_the_other_signs_of_main() -> None:
    lies = [sign("PG146", f"tests/test_version.py:{line}") for line in (51, 52, 53, 54)]
    folded = quiet(report(*lies)).steps[0]
    (notice,) = folded.findings
    assert notice.severity is Severity.NOTICE and notice.rule == "PG146"
    assert notice.message.startswith("4 signs repeat main's own behaviour")
