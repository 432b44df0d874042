"""A run without the sandbox (`--no-sandbox`) is said in the first line of every rendering
built from the one Report: the text report, the check run's title and summary, the comment."""

from __future__ import annotations

import json
from dataclasses import replace

from planegate.findings import Step
from planegate.report import NO_SANDBOX, Report, StepResult, json_load, json_report, text
from planegate.report.markdown import (
    MARKER,
    MarkdownContext,
    check_title,
    render_check_summary,
    render_comment,
)

REPORT = Report(
    base="a" * 40,
    head="b" * 40,
    merge_base="c" * 40,
    agent=True,
    digest_source="main's digest",
    steps=tuple(StepResult(step, (), ()) for step in Step),
)
CTX = MarkdownContext()


def first_visible(body: str) -> str:
    return next(line for line in body.splitlines() if line.strip() and line != MARKER)


def test_every_first_line_says_no_sandbox() -> None:
    bare = replace(REPORT, unsandboxed=True)
    assert text.render(bare, color=False).splitlines()[0].endswith(NO_SANDBOX)
    assert check_title(bare) == f"planegate: pass · {NO_SANDBOX}"
    assert NO_SANDBOX in first_visible(render_comment(bare, CTX))
    assert NO_SANDBOX in first_visible(render_check_summary(bare, CTX))
    assert json.loads(json_report.render(bare))["unsandboxed"] is True
    assert json_load.report_from_dict(json.loads(json_report.render(bare))).unsandboxed


def test_a_sandboxed_report_says_nothing_of_it() -> None:
    for body in (
        text.render(REPORT, color=False),
        render_comment(REPORT, CTX),
        check_title(REPORT),
    ):
        assert "sandbox" not in body.lower()
