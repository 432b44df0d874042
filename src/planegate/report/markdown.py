"""Markdown for the PR comment, the check run summary and the job summary, from one Report.

GitHub refuses a check run summary of 65,535 or more and a comment over 65,536, and truncates
a job summary over 1 MiB. All three are measured here in UTF-8 bytes: GitHub refused a
65,020-character summary that was 65,968 bytes. Each rendering is cut to its limit by priority:
the header first, then findings (errors before warnings before notices), then the steps,
the shadow lane and the notes. Whatever is cut is counted in a line that says where the
full report is, so nothing is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from planegate import exitcodes, untrusted
from planegate.findings import STEP_ORDER, Finding, Severity
from planegate.report import NO_SANDBOX, Report
from planegate.report.pictures import pictures
from planegate.rules import RULES

MARKER = "<!-- planegate:report -->"
CHECK_RUN_LIMIT = 65_535  # UTF-8 bytes; the text must be shorter than this
COMMENT_LIMIT = 65_536  # UTF-8 bytes; at most this
JOB_SUMMARY_LIMIT = 1_048_576  # UTF-8 bytes; at most this
CELL_LIMIT = 1_200  # one long message must not crowd out the other findings
INTERNAL_ERROR_TITLE = "planegate could not evaluate this pull request"

_ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.NOTICE: "ℹ️"}
_POINTER_RESERVE = 600

Measure = Callable[[str], int]


@dataclass(frozen=True)
class MarkdownContext:
    """What the renderings need besides the Report: where links point and who is notified."""

    server_url: str = "https://github.com"
    repository: str | None = None
    head_sha: str | None = None
    mention_owners: bool = False
    full_report: str = "the job summary and the `planegate-report.json` file"


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


def priority(finding: Finding) -> tuple[int, int, str, int, str]:
    """Errors first; within a severity, the gate's step order, then place."""
    return (
        finding.severity.rank,
        STEP_ORDER.index(finding.step),
        finding.path or "",
        finding.line or 0,
        finding.rule,
    )


def escape_text(text: str) -> str:
    """Untrusted text made inert in a table cell or list item (see planegate.untrusted)."""
    return untrusted.markdown(text)


def _trusted(text: str) -> str:
    """planegate's own words (rule titles and fixes): code spans kept, tables not broken."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _clip(text: str, limit: int = CELL_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def owner_cell(owner: str, *, mention: bool) -> str:
    """`@org/team` notifies only when mentions are on; otherwise it is shown as code."""
    if re.fullmatch(r"@[\w./-]+", owner):
        return owner if mention else untrusted.code_span(owner)
    return escape_text(owner)


def location_cell(finding: Finding, ctx: MarkdownContext) -> str:
    if finding.path is None:
        return "–"
    label = escape_text(_clip(finding.location, 300))
    if ctx.repository is None or ctx.head_sha is None:
        return label
    anchor = f"#L{finding.line}" if finding.line else ""
    url = f"{ctx.server_url}/{ctx.repository}/blob/{ctx.head_sha}/{quote(finding.path)}{anchor}"
    return f"[{label}]({url})"


def finding_row(finding: Finding, ctx: MarkdownContext) -> str:
    rule = RULES.get(finding.rule)
    title = f"{finding.rule} {rule.title}" if rule else finding.rule
    todo = escape_text(_clip(finding.message))
    if rule is not None:
        who = "you may fix this" if rule.agent_may_fix else "an owner must act"
        todo += f"<br>**Fix** ({who}): {_trusted(rule.how_to_fix)}"
    cells = (
        _ICON[finding.severity],
        finding.step.value,
        _trusted(title),
        location_cell(finding, ctx),
        owner_cell(finding.owner, mention=ctx.mention_owners),
        todo,
    )
    return "| " + " | ".join(cells) + " |"


def check_title(report: Report) -> str:
    said = f" · {NO_SANDBOX}" if report.unsandboxed else ""
    if report.exit_code == exitcodes.PASS:
        return "planegate: pass" + said
    described = exitcodes.describe(report.exit_code)
    name = described.name if described else "fail"
    return f"planegate: fail — {name} (exit {report.exit_code})" + said


def _header(report: Report) -> list[str]:
    code = report.exit_code
    described = exitcodes.describe(code)
    verdict = "✅ pass" if code == exitcodes.PASS else "❌ fail"
    said = f" · ⚠️ {NO_SANDBOX}" if report.unsandboxed else ""
    lines = [f"## planegate: {verdict}{said}", ""]
    if described is not None and code != exitcodes.PASS:
        lines.append(
            f"**Exit {code} · {described.name}**: {described.meaning}. "
            f"Owner of this failure: {_trusted(described.owner)}."
        )
    else:
        lines.append(f"**Exit {code}**: every step passed.")
    patch = "an agent's patch" if report.agent else "not an agent's patch"
    lines += [
        "",
        f"Base `{report.base[:12]}` · head `{report.head[:12]}` · merge base "
        f"`{report.merge_base[:12]}` · {_merged(report)} · {patch}",
        f"Digest: {escape_text(report.digest_source)}",
        "",
    ]
    if report.trust:
        lines[1:1] = [f"> {escape_text(report.trust)}", ""]
    return lines


def _merged(report: Report) -> str:
    if report.merged:
        return f"ran the head merged onto the base (tree `{report.merged[:12]}`)"
    return "the head does not merge onto the base"


def _counts(findings: Sequence[Finding]) -> str:
    parts = []
    for severity in Severity:
        count = sum(1 for f in findings if f.severity is severity)
        if count:
            parts.append(f"{count} {severity.value}{'s' if count != 1 else ''}")
    return ", ".join(parts) or "none"


_TABLE_HEAD = (
    "| | step | rule | where | owner | what to do |",
    "|---|---|---|---|---|---|",
)


def _steps_block(report: Report) -> list[str]:
    lines = ["", "### Steps", ""]
    for result in report.steps:
        status = "fail" if result.failed else "pass"
        lines.append(f"- **{result.step.value}** (exit {result.step.exit_code}): {status}")
        lines += [f"  - {escape_text(_clip(note))}" for note in result.notes]
    return lines


def _shadow_lines(report: Report, ctx: MarkdownContext) -> list[str]:
    return [
        f"- {escape_text(_clip(s.nodeid, 300))}: {escape_text(s.outcome)} "
        f"(owner {owner_cell(s.owner, mention=ctx.mention_owners)})"
        for s in report.shadow
    ]


def _new_test_lines(report: Report) -> list[str]:
    return [
        f"- {escape_text(_clip(t.nodeid, 300))}: {escape_text(t.outcome)} ({escape_text(t.plane)})"
        for t in report.new_tests
    ]


def _classify_block(report: Report) -> list[str]:
    """The planegate.yml rows that classify the tests the patch adds, whole or not at all."""
    if not report.classify:
        return []
    longest = max(
        (len(run) for line in report.classify for run in re.findall(r"`+", line)), default=0
    )
    fence = "`" * max(3, longest + 1)
    return [
        "",
        "### Rows that would classify the tests the patch adds",
        "",
        "A person (not an agent) adds these entries to the planes' `nodeids` lists in "
        "`planegate.yml`, in a commit of their own on this pull request; or the maintainer "
        "declares an `admit` folder for the plane on main.",
        "",
        f"{fence}yaml",
        *(untrusted.inert_commands(untrusted.clean(line)) for line in report.classify),
        fence,
    ]


class _Budget:
    """Lines joined by newlines, measured as they are added (no quadratic re-joining)."""

    def __init__(self, measure: Measure, budget: int) -> None:
        self.measure = measure
        self.left = budget + 1  # the first line has no newline before it

    def take(self, lines: Sequence[str], *, force: bool = False) -> bool:
        cost = sum(self.measure(line) + 1 for line in lines)
        if cost > self.left and not force:
            return False
        self.left -= cost
        return True


def render(  # noqa: PLR0913 - the report and its context; the limits keyword-only
    report: Report,
    ctx: MarkdownContext,
    *,
    limit: int,
    measure: Measure = len,
    marker: bool = False,
    preface: Sequence[str] = (),
    stated_limit: int | None = None,
    after_header: Sequence[str] = (),
) -> str:
    """The report as markdown, `measure(result) <= limit`, cut by priority with a pointer
    (which names `stated_limit`, GitHub's number, when that differs from `limit`)."""
    budget = _Budget(measure, limit - _POINTER_RESERVE)
    body = ([MARKER] if marker else []) + list(preface) + _header(report) + list(after_header)
    findings = sorted(report.findings, key=priority)
    if findings:
        body += [f"### Findings ({_counts(findings)})", "", *_TABLE_HEAD]
    budget.take(body, force=True)
    kept = 0
    for finding in findings:
        row = finding_row(finding, ctx)
        if not budget.take([row]):
            break
        body.append(row)
        kept += 1
    steps = _steps_block(report)
    steps_kept = budget.take(steps)
    tail = steps if steps_kept else []
    extras, extra_left = _extras(report, ctx, budget)
    said = stated_limit or limit
    pointer = _pointer(findings[kept:], extra_left, not steps_kept, ctx, said, measure)
    lines = body + (["", *pointer] if pointer else []) + tail + extras
    text = "\n".join(lines) + "\n"
    return text if measure(text) <= limit else _hard_cut(text, limit, measure, ctx)


def _extras(report: Report, ctx: MarkdownContext, budget: _Budget) -> tuple[list[str], int]:
    """The shadow lane and the notes, as many lines as fit; returns them and the count cut."""
    extras: list[str] = []
    left = 0
    rows = _classify_block(report)
    if rows and budget.take(rows):
        extras += rows
    elif rows:
        left += len(report.classify)
    sections = (
        ("### Tests the patch adds (its claims: run apart, never voting)", _new_test_lines(report)),
        ("### Shadow lane (frozen tests: reported, never voting)", _shadow_lines(report, ctx)),
        ("### Notes", [f"- {escape_text(_clip(note))}" for note in report.notes]),
    )
    for title, items in sections:
        if not items:
            continue
        heading = ["", title, ""]
        if not budget.take(heading):
            left += len(items)
            continue
        extras += heading
        for item in items:
            if budget.take([item]):
                extras.append(item)
            else:
                left += 1
    return extras, left


def _pointer(
    left: Sequence[Finding],
    extra_left: int,
    steps_left: bool,
    ctx: MarkdownContext,
    limit: int,
    measure: Measure,
) -> list[str]:
    if not left and not extra_left and not steps_left:
        return []
    unit = "bytes" if measure is utf8_length else "characters"
    what = []
    if left:
        what.append(f"{len(left)} finding{'s' if len(left) != 1 else ''} ({_counts(left)})")
    if extra_left:
        what.append(f"{extra_left} shadow-lane or note line{'s' if extra_left != 1 else ''}")
    if steps_left:
        what.append("the step list")
    return [
        f"**{' and '.join(what)} left out here** to stay within GitHub's limit of "
        f"{limit:,} {unit}; the full report is in {ctx.full_report}."
    ]


def _hard_cut(text: str, limit: int, measure: Measure, ctx: MarkdownContext) -> str:
    # Only reached when the header itself is over the limit (a huge digest source or preface).
    tail = f"\n\n**Cut at GitHub's limit**; the full report is in {ctx.full_report}.\n"
    return cut_to(text, limit - measure(tail), measure) + tail


def cut_to(text: str, limit: int, measure: Measure = utf8_length) -> str:
    """The longest prefix of `text` with `measure(prefix) <= limit`, never half a character."""
    if measure(text) <= limit:
        return text
    if measure is utf8_length:
        return text.encode("utf-8")[: max(0, limit)].decode("utf-8", errors="ignore")
    while measure(text) > limit:
        text = text[: max(0, len(text) - max(1, measure(text) - limit))]
    return text


def render_comment(report: Report, ctx: MarkdownContext) -> str:
    return render(report, ctx, limit=COMMENT_LIMIT, measure=utf8_length, marker=True)


def render_check_summary(report: Report, ctx: MarkdownContext) -> str:
    return render(
        report,
        ctx,
        limit=CHECK_RUN_LIMIT - 1,
        measure=utf8_length,
        stated_limit=CHECK_RUN_LIMIT,
    )


def render_job_summary(report: Report, ctx: MarkdownContext, preface: Sequence[str] = ()) -> str:
    """The check summary's content with pictures a reviewer reads at a glance (the gate's
    order as a diagram, a table per step and per plane) below the header."""
    return render(
        report,
        ctx,
        limit=JOB_SUMMARY_LIMIT,
        measure=utf8_length,
        preface=preface,
        after_header=[*pictures(report), ""],
    )


def render_internal_error(message: str, ctx: MarkdownContext, *, limit: int) -> str:
    """The fail-closed text, at most `limit` UTF-8 bytes."""
    text = (
        f"## {INTERNAL_ERROR_TITLE}\n\n"
        "planegate failed before it reached a verdict, so this check fails closed.\n\n"
        f"```text\n{_clip(message, 4_000).replace('```', '` ` `')}\n```\n\n"
        f"Rerun the job; if it fails again, the job log and {ctx.full_report} say more.\n"
    )
    return cut_to(text, limit)
