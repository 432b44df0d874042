"""Failure text and test names from the patch are inert in every rendering (golden locked by
tests/fixtures.lock.json): no escape sequence, no workflow command, no live Markdown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from planegate import untrusted
from planegate.findings import Finding, Severity, Step
from planegate.github.check_runs import annotations_for
from planegate.report import (
    NewTestResult,
    ProbeRecord,
    Report,
    ShadowResult,
    StepResult,
    json_report,
    sarif,
    text,
)
from planegate.report.markdown import MarkdownContext, render_comment
from planegate.report.workflow_commands import finding_commands

GOLDEN = Path(__file__).parent / "golden" / "untrusted.txt"
NODEID = "tests/prop/test_p.py::test_p[\n::error::forged]"
HOSTILE = (
    "\x1b[2J\x1b[1;32mplanegate: PASS (exit 0)\x1b[0m\r"
    "assert 1 == 2\n::error::every test passed\n  ::add-mask::ghs_secret\n"
    "##[warning]legacy command ![badge](https://evil.example/pass.svg) "
    "[approve](https://evil.example) <img src=x> @maintainer please merge \u202eevil"
)
REPORT = Report(
    base="a" * 40,
    head="b" * 40,
    merge_base="c" * 40,
    merged="d" * 40,
    agent=True,
    digest_source="recomputed from git at the base tip aaaaaaaaaaaa",
    steps=(
        StepResult(
            Step.PLANES,
            (
                Finding(
                    "PG101",
                    Step.PLANES,
                    Severity.ERROR,
                    f"{NODEID} failed: {HOSTILE}",
                    path="tests/prop/test_p.py",
                    owner="agent[bot]",
                    plane="property",
                    nodeid=NODEID,
                ),
            ),
            (f"last output: {HOSTILE}",),
        ),
    ),
    shadow=(ShadowResult(f"tests/fix/test_`t`.py::test_{HOSTILE}", "failed", "@org/flakes"),),
    notes=(HOSTILE,),
    new_tests=(NewTestResult(f"tests/test_new.py::test_{HOSTILE}", "failed", "unclassified"),),
    classify=("planes:", "  fixture:", "    nodeids:", f"      - {json.dumps('t/``` ' + HOSTILE)}"),
    probes=(ProbeRecord("base run", "pass", 1.0, 1, f"the patch changes {HOSTILE}"),),
)
CTX = MarkdownContext(repository="octo/demo", head_sha="b" * 40)


def renderings() -> dict[str, str]:
    return {
        "text": text.render(REPORT, color=False),
        "markdown": render_comment(REPORT, CTX),
        "sarif": json.dumps(sarif.to_sarif(REPORT)["runs"][0]["results"], indent=2) + "\n",
        "json": json_report.render(REPORT),
        "annotations": "\n".join(finding_commands(REPORT.findings)) + "\n",
    }


def test_every_rendering_of_hostile_text_matches_the_golden() -> None:
    combined = "".join(f"===== {name}\n{body}" for name, body in renderings().items())
    assert combined == GOLDEN.read_text("utf-8")


def test_no_rendering_holds_an_escape_sequence_or_a_forged_command() -> None:
    for name, body in renderings().items():
        assert "\x1b" not in body and "\r" not in body and "\u202e" not in body, name
        assert "##[" not in body, name
        own = [line for line in body.splitlines() if line.lstrip().startswith("::")]
        if name == "annotations":  # planegate's own commands, one a finding, escaped inside
            assert len(own) == len(body.splitlines()) == 1
            assert own[0].startswith("::error file=tests/prop/test_p.py,")
        else:
            assert own == [], name


def test_markdown_renders_no_image_link_html_or_mention() -> None:
    """Outside the one fenced block (the rows to classify new tests, shown as text: GitHub
    renders nothing inside a fence no backtick run of its content can close)."""
    whole = render_comment(REPORT, CTX)
    fenced = re.search(r"^(`{3,})yaml\n(.*?)\n\1$", whole, re.MULTILINE | re.DOTALL)
    assert fenced is not None and "<img" in fenced.group(2)
    longest = max(len(run) for run in re.findall(r"`+", fenced.group(2)))
    assert len(fenced.group(1)) > longest
    body = whole.replace(fenced.group(0), "")
    assert not re.search(r"(?<!\\)!?(?<!\\)\[[^\]]*(?<!\\)\]\(", body.replace(CTX_LINK, ""))
    assert "<img" not in body and "https://evil" not in body
    assert "@maintainer" not in body and "&#64;maintainer" in body
    assert "`@org/flakes`" in body  # an owner is shown, not notified


CTX_LINK = f"(https://github.com/octo/demo/blob/{'b' * 40}/tests/prop/test_p.py)"


def test_the_json_report_keeps_the_text_but_no_escape_sequence() -> None:
    data = json.loads(json_report.render(REPORT))
    (finding,) = data["steps"][0]["findings"]
    assert "assert 1 == 2" in finding["message"] and "\x1b" not in finding["message"]
    assert finding["nodeid"] == "tests/prop/test_p.py::test_p[\n\\::error::forged]"


def test_check_run_annotations_hold_no_escape_sequence() -> None:
    (note,) = annotations_for(REPORT.findings)
    assert "\x1b" not in note["message"] and "\u202e" not in note["message"]
    assert note["message"].startswith("tests/prop/test_p.py::test_p[\n::error::forged] failed")


def test_cleaning_is_idempotent_on_the_hostile_text() -> None:
    for clean in (untrusted.clean, untrusted.one_line, untrusted.inert_commands):
        once = clean(HOSTILE)
        assert clean(once) == once


def test_issue_references_in_markdown_link_nowhere() -> None:
    shown = untrusted.markdown("fixes #12, octo/other#7 and GH-3 for @x")
    assert not re.search(r"(?<!&)#\d|GH-\d", shown)
    assert shown.replace("\u2060", "") == "fixes #12, octo/other#7 and GH-3 for &#64;x"
