"""Rules on comparisons the patch loosened without removing them (PG540, PG541): the base
compared a value whole; the head compares only a part of it, or only whether it is None or of
a type. The assert count and the assert's shape stay, so review reads them as checks."""

from __future__ import annotations

from planegate.analysis.hunks.facts import Facts, Projection, Weak
from planegate.analysis.hunks.placement import Scope
from planegate.findings import Finding

PARTS = {
    "len()": "only its length",
    "sorted()": "its items without their order",
    "set()": "its distinct items, without order or count",
    "frozenset()": "its distinct items, without order or count",
    ".keys()": "only its keys",
    ".values()": "only its values",
    "[...]": "one entry of it",
}
CHECKS = {"none": "whether it is None", "type": "only its type"}


def loosened(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    return [*projected(scope, base, head), *weakened(scope, base, head)]


def projected(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    """PG540: an equality on the whole value became one on a part of it."""
    out: list[Finding] = []
    seen: set[str] = set()
    for part in head.projections:
        subject = _lost_subject(part, base, head)
        if subject is None or subject in seen or _compared_on_base(part, base):
            continue
        seen.add(subject)
        what = PARTS.get(part.how, f"one attribute of it ({part.how})")
        message = f"{scope.label}: `{part.text}` compares {what}; the base compared the whole value"
        out.append(scope.finding("PG540", part.line, message))
    return out


def _lost_subject(part: Projection, base: Facts, head: Facts) -> str | None:
    """The value the base compared whole that the head now only compares a part of."""
    for subject in part.subjects:
        if subject in base.value_checked:
            return None if subject in head.value_checked else subject
    return None


def _compared_on_base(part: Projection, base: Facts) -> bool:
    return any(p.subjects == part.subjects and p.how == part.how for p in base.projections)


def weakened(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    """PG541: an equality became a None check or a type check of the same value."""
    if not head.weak:
        return []
    out: list[Finding] = []
    seen: set[str] = set()
    base_weak = {w.subject for w in base.weak}
    for weak in head.weak:
        if weak.kind not in CHECKS or weak.subject in seen or weak.subject in base_weak:
            continue
        if weak.subject in base.value_checked and weak.subject not in head.value_checked:
            seen.add(weak.subject)
            out.append(_weakened(scope, weak))
    return out


def _weakened(scope: Scope, weak: Weak) -> Finding:
    message = (
        f"{scope.label}: value check replaced by `{weak.text}`, which checks {CHECKS[weak.kind]}"
    )
    return scope.finding("PG541", weak.line, message)
