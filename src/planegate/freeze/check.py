"""The gate's ledger step and `planegate ledger check`: findings and problems of one ledger."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from planegate.config import defaults
from planegate.findings import Finding, Severity, Step
from planegate.freeze.appendonly import append_only
from planegate.freeze.events import (
    RULE_INVALID,
    RULE_REPLAY_DUE,
    RULE_REWRITTEN,
    RULE_TOO_MANY_FROZEN,
    LedgerProblem,
)
from planegate.freeze.fold import frozen_fraction_exceeded, replays_due
from planegate.freeze.parse import decode, future_dated, parse


def _finding(problem: LedgerProblem, rule: str, default_owner: str) -> Finding:
    return Finding(
        rule=rule,
        step=Step.LEDGER,
        severity=Severity.ERROR,
        message=problem.message,
        path=problem.path,
        line=problem.line,
        owner=problem.owner or default_owner,
        plane="freeze",
        nodeid=problem.nodeid,
    )


def check(  # noqa: PLR0913 - the ledger step's inputs, options keyword-only
    base_text: str | None,
    head_text: str | None,
    path: str,
    today: date,
    *,
    default_owner: str,
    suite_size: int | None = None,
    max_fraction: float = defaults.MAX_FROZEN_FRACTION,
) -> list[Finding]:
    """The gate's ledger step on the head's ledger against the base's (None: no file).

    PG402 for base lines edited, deleted or pushed down; PG401 for invalid head lines; PG403
    for each replay due; PG404 when `suite_size` is given and too much of it is frozen.
    """
    base, head = base_text or "", head_text or ""
    findings = [_finding(p, RULE_REWRITTEN, default_owner) for p in append_only(base, head, path)]
    parsed = parse(head, path)
    invalid = [*parsed.problems, *future_dated(parsed, path, today)]
    findings += [_finding(p, RULE_INVALID, default_owner) for p in invalid]
    state = parsed.state()
    for due in replays_due(state, today):
        message = (
            f"replay due for '{due.nodeid}': review_by {due.review_by.isoformat()} passed "
            f"{due.days_overdue} day{'s' if due.days_overdue != 1 else ''} ago; "
            "thaw it or renew it with new evidence"
        )
        problem = LedgerProblem(path, due.line, message, RULE_REPLAY_DUE, due.owner, due.nodeid)
        findings.append(_finding(problem, RULE_REPLAY_DUE, default_owner))
    if suite_size is not None and frozen_fraction_exceeded(len(state), suite_size, max_fraction):
        message = (
            f"{len(state)} of {suite_size} tests are frozen, more than "
            f"{_percent(max_fraction)} of the suite"
        )
        problem = LedgerProblem(path, None, message, RULE_TOO_MANY_FROZEN)
        findings.append(_finding(problem, RULE_TOO_MANY_FROZEN, default_owner))
    return sorted(findings, key=Finding.sort_key)


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def check_file(path: Path, today: date) -> list[LedgerProblem]:
    """`planegate ledger check`: every validation problem of one ledger file (exit 65 if any).

    A replay due is not a validation problem; use `replays_due(parse(...).state(), today)`.
    """
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [LedgerProblem(name, None, "no such file")]
    except OSError as error:
        return [LedgerProblem(name, None, f"cannot be read: {error.strerror or error}")]
    text, problems = decode(data, name)
    parsed = parse(text, name)
    return sorted(
        [*problems, *parsed.problems, *future_dated(parsed, name, today)],
        key=lambda p: p.line or 0,
    )
