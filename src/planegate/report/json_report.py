"""The JSON rendering of a Report (docs/report.md documents every field)."""

from __future__ import annotations

from typing import Any

from planegate import untrusted, wire
from planegate.findings import Finding
from planegate.report import SCHEMA_VERSION, Report
from planegate.rules import RULES


def _text(value: str | None) -> Any:
    """Strings the patch controls, as `untrusted.clean` leaves them: a consumer that prints
    the JSON's values gets no escape sequences (line breaks stay: the JSON escapes them)."""
    return None if value is None else untrusted.inert_commands(untrusted.clean(value))


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    rule = RULES.get(finding.rule)
    return {
        "rule": finding.rule,
        "title": rule.title if rule else finding.rule,
        "step": finding.step.value,
        "severity": finding.severity.value,
        "path": _text(finding.path),
        "line": finding.line,
        "message": _text(finding.message),
        "owner": _text(finding.owner),
        "plane": finding.plane,
        "nodeid": _text(finding.nodeid),
        "agent_may_fix": rule.agent_may_fix if rule else False,
        "how_to_fix": rule.how_to_fix if rule else "",
    }


def to_dict(report: Report) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        **({"trust": report.trust} if report.trust else {}),
        "verdict": report.verdict,
        "exit_code": report.exit_code,
        "failed_step": report.failed_step.value if report.failed_step else None,
        "base": report.base,
        "head": report.head,
        "merge_base": report.merge_base,
        "merged_tree": report.merged or None,
        "agent": report.agent,
        "digest_source": _text(report.digest_source),
        "unsandboxed": report.unsandboxed,
        "steps": [
            {
                "step": result.step.value,
                "exit_code": result.step.exit_code,
                "status": "fail" if result.failed else "pass",
                "notes": [_text(note) for note in result.notes],
                "findings": [
                    finding_to_dict(f) for f in sorted(result.findings, key=Finding.sort_key)
                ],
            }
            for result in report.steps
        ],
        "shadow": [
            {"nodeid": _text(s.nodeid), "outcome": _text(s.outcome), "owner": _text(s.owner)}
            for s in report.shadow
        ],
        "new_tests": [
            {"nodeid": _text(t.nodeid), "outcome": _text(t.outcome), "plane": t.plane}
            for t in report.new_tests
        ],
        "classify": [_text(line) for line in report.classify],
        "notes": [_text(note) for note in report.notes],
        "base_broken": [_text(nodeid) for nodeid in report.base_broken],
        "timings": {_text(name): seconds for name, seconds in report.timings.items()},
        "probes": [
            {
                "probe": p.probe,
                "outcome": p.outcome,
                "seconds": p.seconds,
                "tests": p.tests,
                "detail": _text(p.detail),
            }
            for p in report.probes
        ],
    }


def render(report: Report) -> str:
    return wire.REPORT.dump(to_dict(report))
