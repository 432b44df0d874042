"""Markdown renderings: GitHub's limits, the priority cut, inert untrusted text, SARIF."""

from __future__ import annotations

from typing import Any

from helpers.github_support import HEAD, finding, report_of
from planegate.findings import Finding, Severity, Step
from planegate.report import Report, sarif
from planegate.report.markdown import (
    CHECK_RUN_LIMIT,
    COMMENT_LIMIT,
    JOB_SUMMARY_LIMIT,
    MARKER,
    MarkdownContext,
    render_check_summary,
    render_comment,
    render_job_summary,
)
from planegate.rules import RULES

CTX = MarkdownContext(repository="octo/demo", head_sha=HEAD, full_report="`planegate-report.json`")


def _big_report(total_chars: int = 70_000) -> tuple[Report, list[Finding]]:
    """Warnings and notices first in the input, errors last: the cut must reorder them."""
    findings: list[Finding] = []
    n = 0
    while sum(len(f.message) for f in findings) < total_chars:
        n += 1
        severity = (
            Severity.ERROR if n % 4 == 0 else Severity.WARNING if n % 4 == 1 else Severity.NOTICE
        )
        findings.append(finding(n, severity=severity, message=f"finding {n}: " + "x" * 300))
    return report_of(findings), findings


def test_a_70000_character_table_is_cut_with_the_pointer_line() -> None:
    report, findings = _big_report()
    text = render_check_summary(report, CTX)

    assert len(text.encode("utf-8")) < CHECK_RUN_LIMIT
    rows = [line for line in text.splitlines() if line.startswith("| ") and "PG301" in line]
    assert 0 < len(rows) < len(findings)
    pointer = next(line for line in text.splitlines() if "left out here" in line)
    assert f"{len(findings) - len(rows)} findings" in pointer
    assert "the full report is in `planegate-report.json`" in pointer
    assert "65,535 bytes" in pointer


def test_a_70000_byte_multibyte_table_is_cut_under_the_byte_limit() -> None:
    """Each message is under CELL_LIMIT characters but three bytes a character: a cut that
    counted characters would send well over 65,535 bytes."""
    findings = [finding(n, message="€" * 300) for n in range(80)]
    report = report_of(findings)
    table_bytes = sum(len(f.message.encode("utf-8")) for f in findings)
    assert table_bytes > 70_000 and sum(len(f.message) for f in findings) < 65_000

    summary = render_check_summary(report, CTX)
    comment = render_comment(report, CTX)

    assert len(summary.encode("utf-8")) < CHECK_RUN_LIMIT
    assert len(comment.encode("utf-8")) <= COMMENT_LIMIT
    for text in (summary, comment):
        rows = [line for line in text.splitlines() if "PG301" in line and "€" in line]
        assert 0 < len(rows) < len(findings)
        pointer = next(line for line in text.splitlines() if "left out here" in line)
        assert f"{len(findings) - len(rows)} findings" in pointer


def test_the_cut_keeps_errors_before_warnings_and_notices() -> None:
    report, findings = _big_report()
    text = render_comment(report, CTX)
    assert len(text) <= COMMENT_LIMIT and text.startswith(MARKER)
    icons = [line.split(" | ")[0] for line in text.splitlines() if "PG301" in line]
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    assert icons[:errors] == ["| ❌"] * errors
    assert "| ❌" not in icons[errors:]


def test_the_job_summary_fits_in_one_mebibyte_of_utf8() -> None:
    findings = [finding(n, message="ü" * 1_000) for n in range(2_000)]
    text = render_job_summary(report_of(findings), CTX, preface=["> preface"])
    assert len(text.encode()) <= JOB_SUMMARY_LIMIT
    assert "bytes; the full report is in" in text
    assert text.startswith("> preface")


def test_small_reports_are_whole() -> None:
    text = render_comment(report_of([finding(3)]), CTX)
    assert "left out" not in text
    assert "## planegate: ❌ fail" in text
    assert "**Exit 3 · evidence**" in text
    link = (
        f"[tests/test_money.py:3](https://github.com/octo/demo/blob/{HEAD}/tests/test_money.py#L3)"
    )
    assert link in text
    assert RULES["PG301"].how_to_fix in text
    assert "an owner must act" in text


def test_owners_do_not_notify_unless_mentions_are_on() -> None:
    report = report_of([finding(1, owner="@octo/qa", message="ping @someone")])
    quiet = render_comment(report, CTX)
    assert "`@octo/qa`" in quiet
    assert "@someone" not in quiet and "&#64;someone" in quiet

    loud = render_comment(report, MarkdownContext(repository="octo/demo", mention_owners=True))
    assert "| @octo/qa |" in loud


def test_untrusted_text_cannot_break_the_table_or_fake_the_marker() -> None:
    report = report_of([finding(1, message=f"a | b\n{MARKER}\n<script>")])
    text = render_comment(report, CTX)
    assert text.count(MARKER) == 1
    row = next(line for line in text.splitlines() if "PG301" in line)
    assert "a \\| b<br>&lt;!-- planegate:report --&gt;<br>&lt;script&gt;" in row


def test_a_pass_says_so() -> None:
    text = render_check_summary(report_of([]), CTX)
    assert "## planegate: ✅ pass" in text and "every step passed" in text
    assert "### Findings" not in text


def test_sarif_has_one_rule_per_pg_id_and_every_finding() -> None:
    report = report_of(
        [
            finding(4),
            finding(9, rule="PG101", step=Step.PLANES, severity=Severity.WARNING, path=None),
        ]
    )
    log = sarif.to_sarif(report)
    run = log["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert log["version"] == "2.1.0"
    assert sorted(rule_ids) == sorted(RULES) and len(set(rule_ids)) == len(rule_ids)
    results = {r["ruleId"]: r for r in run["results"]}
    assert results["PG301"]["level"] == "error"
    assert results["PG301"]["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    assert rule_ids[results["PG101"]["ruleIndex"]] == "PG101"
    descriptor = run["tool"]["driver"]["rules"][results["PG101"]["ruleIndex"]]
    assert descriptor["helpUri"] == (
        "https://github.com/planegate/planegate/blob/main/docs/findings.md#pg101"
    )
    assert results["PG101"]["level"] == "warning"
    location = results["PG101"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert location == "planegate.yml"


def test_sarif_fingerprints_follow_a_finding_across_runs_not_its_line() -> None:
    first = sarif.to_sarif(report_of([finding(4), finding(9, rule="PG101", step=Step.PLANES)]))
    moved = sarif.to_sarif(report_of([finding(40), finding(90, rule="PG101", step=Step.PLANES)]))

    def prints(log: dict[str, Any]) -> dict[str, str]:
        return {
            r["ruleId"]: r["partialFingerprints"][sarif.FINGERPRINT]
            for r in log["runs"][0]["results"]
        }

    assert prints(first) == prints(moved)
    assert len(set(prints(first).values())) == 2


def test_sarif_run_names_its_category_so_two_checks_keep_their_own_alerts() -> None:
    report = report_of([finding(4)])
    assert sarif.to_sarif(report)["runs"][0]["automationDetails"] == {"id": "planegate/"}
    named = sarif.to_sarif(report, category="planegate-shard-2")
    assert named["runs"][0]["automationDetails"] == {"id": "planegate-shard-2/"}


def test_the_job_summary_marks_no_step_when_every_step_passed() -> None:
    text = render_job_summary(report_of([]), CTX)
    assert "```mermaid\nflowchart LR\n" in text
    assert "class inventory passed" in text and "decided" not in text.split("classDef")[-1]
    assert "| planes | 1 | ✅ pass | 0 | 0 | 0 |" in text
    assert "### By plane" not in text  # no finding names a plane
