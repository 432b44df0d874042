"""The freeze ledger: append-only JSON lines; state is the fold of its events (minimal)."""

from __future__ import annotations

import json
from datetime import date

from planegate.findings import Finding, Severity, Step


def frozen_nodeids(text: str | None, path: str) -> dict[str, str]:
    """nodeid -> owner for every nodeid frozen after folding the events."""
    state: dict[str, str] = {}
    for line in (text or "").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("event") == "freeze":
            state[str(event.get("nodeid"))] = str(event.get("owner", "unowned"))
        elif event.get("event") == "thaw":
            state.pop(str(event.get("nodeid")), None)
    return state


def check(
    base_text: str | None, head_text: str | None, path: str, today: date, *, default_owner: str
) -> list[Finding]:
    findings = []
    for number, line in enumerate((head_text or "").splitlines(), start=1):
        try:
            json.loads(line)
        except json.JSONDecodeError as error:
            findings.append(
                Finding(
                    "PG401",
                    Step.LEDGER,
                    Severity.ERROR,
                    f"{path}:{number}: not JSON: {error.msg}",
                    path=path,
                    line=number,
                    owner=default_owner,
                )
            )
    return findings
