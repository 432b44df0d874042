"""Read a JSON report (`--format json`) back into a Report: `planegate action` in `report` mode.

The shape is checked against src/planegate/schemas/report.schema.json (docs/report.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planegate import wire
from planegate.findings import Finding, Severity, Step
from planegate.report import NewTestResult, ProbeRecord, Report, ShadowResult, StepResult


def finding_from_dict(data: Mapping[str, Any]) -> Finding:
    return Finding(
        rule=data["rule"],
        step=Step(data["step"]),
        severity=Severity(data["severity"]),
        message=data["message"],
        path=data.get("path"),
        line=data.get("line"),
        owner=data.get("owner") or "unowned",
        plane=data.get("plane"),
        nodeid=data.get("nodeid"),
    )


def report_from_dict(data: Mapping[str, Any]) -> Report:
    """A Report from a value that conforms to the report schema."""
    steps = tuple(
        StepResult(
            Step(raw["step"]),
            tuple(finding_from_dict(f) for f in raw["findings"]),
            tuple(raw.get("notes") or ()),
        )
        for raw in data["steps"]
    )
    return Report(
        base=data["base"],
        head=data["head"],
        merge_base=data["merge_base"],
        agent=bool(data.get("agent")),
        digest_source=data.get("digest_source") or "",
        unsandboxed=data.get("unsandboxed") is True,
        trust=str(data.get("trust") or ""),
        steps=steps,
        shadow=tuple(
            ShadowResult(s["nodeid"], s["outcome"], s["owner"]) for s in data.get("shadow") or ()
        ),
        new_tests=tuple(
            NewTestResult(t["nodeid"], t["outcome"], t["plane"])
            for t in data.get("new_tests") or ()
        ),
        classify=tuple(data.get("classify") or ()),
        notes=tuple(data.get("notes") or ()),
        base_broken=tuple(data.get("base_broken") or ()),
        probes=tuple(
            ProbeRecord(
                p["probe"],
                p["outcome"],
                float(p["seconds"]),
                p.get("tests", 0),
                p.get("detail", ""),
            )
            for p in data.get("probes") or ()
        ),
        merged=data.get("merged_tree") or "",
        timings={str(k): float(v) for k, v in (data.get("timings") or {}).items()},
    )


def load_report(text: str | bytes, where: str) -> Report:
    """schema_version is pinned by the schema: a report of another version is refused."""
    data = wire.REPORT.load(text, where)
    return report_from_dict(data)
