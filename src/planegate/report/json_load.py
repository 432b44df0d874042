"""Read a JSON report (`--format json`) back into a Report: `planegate action` in `report` mode."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step
from planegate.report import SCHEMA_VERSION, ProbeRecord, Report, ShadowResult, StepResult


def _need(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise InputDataError(f"{where}: {key!r} is missing or not a {kind.__name__}")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise InputDataError(f"{where}: {key!r} is not a {kind.__name__}")
    return value


def _enum(value: Any, enum: type[Step] | type[Severity], where: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        known = ", ".join(member.value for member in enum)
        raise InputDataError(f"{where}: {value!r} is not one of {known}") from None


def finding_from_dict(data: Any, where: str) -> Finding:
    if not isinstance(data, Mapping):
        raise InputDataError(f"{where}: a finding must be an object")
    line = _optional(data, "line", int, where)
    return Finding(
        rule=_need(data, "rule", str, where),
        step=_enum(data.get("step"), Step, where),
        severity=_enum(data.get("severity"), Severity, where),
        message=_need(data, "message", str, where),
        path=_optional(data, "path", str, where),
        line=line,
        owner=_optional(data, "owner", str, where) or "unowned",
        plane=_optional(data, "plane", str, where),
        nodeid=_optional(data, "nodeid", str, where),
    )


def report_from_dict(data: Any, where: str = "report") -> Report:
    if not isinstance(data, Mapping):
        raise InputDataError(f"{where}: the report must be a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise InputDataError(
            f"{where}: schema_version {version!r}; this planegate reads {SCHEMA_VERSION}"
        )
    steps = []
    for index, raw in enumerate(_need(data, "steps", list, where)):
        at = f"{where}: steps[{index}]"
        if not isinstance(raw, Mapping):
            raise InputDataError(f"{at}: a step must be an object")
        findings = tuple(
            finding_from_dict(f, f"{at}.findings[{n}]")
            for n, f in enumerate(_need(raw, "findings", list, at))
        )
        notes = tuple(str(note) for note in raw.get("notes") or ())
        steps.append(StepResult(_enum(raw.get("step"), Step, at), findings, notes))
    shadow = tuple(
        ShadowResult(str(s.get("nodeid")), str(s.get("outcome")), str(s.get("owner")))
        for s in data.get("shadow") or ()
        if isinstance(s, Mapping)
    )
    return Report(
        base=_need(data, "base", str, where),
        head=_need(data, "head", str, where),
        merge_base=_need(data, "merge_base", str, where),
        agent=bool(data.get("agent")),
        digest_source=str(data.get("digest_source") or ""),
        steps=tuple(steps),
        shadow=shadow,
        notes=tuple(str(note) for note in data.get("notes") or ()),
        base_broken=tuple(str(n) for n in data.get("base_broken") or ()),
        probes=_probes(data.get("probes") or (), where),
    )


def _probes(raw: Any, where: str) -> tuple[ProbeRecord, ...]:
    if not isinstance(raw, (list, tuple)):
        raise InputDataError(f"{where}: 'probes' is not a list")
    records = []
    for index, item in enumerate(raw):
        at = f"{where}: probes[{index}]"
        if not isinstance(item, Mapping):
            raise InputDataError(f"{at}: a probe must be an object")
        seconds = item.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise InputDataError(f"{at}: 'seconds' is missing or not a number")
        records.append(
            ProbeRecord(
                _need(item, "probe", str, at),
                _need(item, "outcome", str, at),
                float(seconds),
                int(_optional(item, "tests", int, at) or 0),
                str(_optional(item, "detail", str, at) or ""),
            )
        )
    return tuple(records)


def load_report(text: str, where: str) -> Report:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputDataError(f"{where}:{error.lineno}: not JSON: {error.msg}") from None
    return report_from_dict(data, where)
