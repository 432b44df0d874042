"""The job summary's pictures: a table per step and per plane, and the gate's order as a
Mermaid flowchart (GitHub renders it) with the step that decided the exit marked.

planegate's own words only: step and plane names are closed sets, counts are numbers, so
nothing here needs escaping; owners and findings stay in the findings table."""

from __future__ import annotations

from collections.abc import Sequence

from planegate.findings import STEP_ORDER, Finding, Severity, Step
from planegate.report import Report, StepResult
from planegate.vocabulary import PLANES

_STATUS = {"fail": "❌ fail", "pass": "✅ pass", "not run": "– not run"}


def step_table(report: Report) -> list[str]:
    """| step | exit | status | errors | warnings | notices | in the gate's order."""
    by_step = {result.step: result for result in report.steps}
    lines = [
        "### By step",
        "",
        "| step | exit | status | errors | warnings | notices |",
        "|---|---|---|---|---|---|",
    ]
    for step in STEP_ORDER:
        result = by_step.get(step)
        found = result.findings if result is not None else ()
        lines.append(
            f"| {step.value} | {step.exit_code} | {_STATUS[_status(result)]} | "
            + " | ".join(str(_count(found, severity)) for severity in Severity)
            + " |"
        )
    return lines


def plane_table(report: Report) -> list[str]:
    """| plane | errors | warnings | notices |, for the planes findings name (none: empty)."""
    findings = [f for result in report.steps for f in result.findings]
    planes: list[str] = [p for p in PLANES if any(f.plane == p for f in findings)]
    if any(f.plane is None for f in findings):
        planes.append("")
    if not planes:
        return []
    lines = ["### By plane", "", "| plane | errors | warnings | notices |", "|---|---|---|---|"]
    for plane in planes:
        own = [f for f in findings if (f.plane or "") == plane]
        counts = " | ".join(str(_count(own, severity)) for severity in Severity)
        lines.append(f"| {plane or '(no plane)'} | {counts} |")
    return lines


def order_diagram(report: Report) -> list[str]:
    """The steps in order, left to right; the first failing step (the exit code's) in red,
    later failing steps in orange, steps that did not run dashed."""
    by_step = {result.step: result for result in report.steps}
    deciding = _deciding(report.steps)
    lines = ["### The gate's order", "", "```mermaid", "flowchart LR"]
    for step in STEP_ORDER:
        status = _status(by_step.get(step))
        label = f"{step.value}<br/>exit {step.exit_code}: {status}"
        lines.append(f'  {step.value}["{label}"]')
    lines.append("  " + " --> ".join(step.value for step in STEP_ORDER))
    lines += [
        "  classDef decided fill:#f8d7da,stroke:#b02a37,stroke-width:3px",
        "  classDef failed fill:#fff3cd,stroke:#b36b00",
        "  classDef passed fill:#d1e7dd,stroke:#146c43",
        "  classDef skipped stroke-dasharray: 4 4",
    ]
    for step in STEP_ORDER:
        status = _status(by_step.get(step))
        kind = {"pass": "passed", "not run": "skipped"}.get(status, "failed")
        lines.append(f"  class {step.value} {'decided' if step is deciding else kind}")
    lines.append("```")
    return lines


def pictures(report: Report) -> list[str]:
    """Everything above, blank-line separated, for the job summary."""
    lines: list[str] = []
    for block in (order_diagram(report), step_table(report), plane_table(report)):
        if block:
            lines += ["", *block]
    return lines


def _status(result: StepResult | None) -> str:
    if result is None:
        return "not run"
    return "fail" if result.failed else "pass"


def _count(findings: Sequence[Finding], severity: Severity) -> int:
    return sum(1 for finding in findings if finding.severity is severity)


def _deciding(results: Sequence[StepResult]) -> Step | None:
    failed = {result.step for result in results if result.failed}
    return next((step for step in STEP_ORDER if step in failed), None)
