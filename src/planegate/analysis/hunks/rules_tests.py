"""Rules on one test function's change: skips, assertions, raises, tolerances, literals,
parametrize cases and collection (PG501-PG512)."""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Iterable, Sequence

from planegate.analysis.hunks.facts import Assertion, Facts, Params, Raises, Skip, Tolerance
from planegate.analysis.hunks.keys import contains
from planegate.analysis.hunks.parsed_module import FuncInfo, short
from planegate.analysis.hunks.placement import Context, Scope, fmt, plural
from planegate.findings import Finding, Severity

BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})
TRIVIAL_PATTERNS = frozenset({"", ".*", ".+", ".", "(?s).*"})
ASYNC_HINT = "pytest does not run `async def` tests without an async plugin"


# Plain dicts rather than Counters: these multisets hold a few keys, built for every pair.
def _counts(items: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def _subtract(items: Iterable[str], minus: Iterable[str]) -> dict[str, int]:
    """The multiset `items` less `minus` (a count at or below zero: none left)."""
    counts = _counts(items)
    if counts:
        for item in minus:
            if item in counts:
                counts[item] -= 1
    return counts


def _take(counts: dict[str, int], value: str) -> bool:
    if counts.get(value, 0) > 0:
        counts[value] -= 1
        return True
    return False


def skips_added(scope: Scope, base: Sequence[Skip], head: Sequence[Skip]) -> list[Finding]:
    if not head:
        return []
    new = _subtract((s.key for s in head), (s.key for s in base))
    before = {s.what for s in base}
    out: list[Finding] = []
    for skip in head:
        if _take(new, skip.key):
            verb = "changed" if skip.what in before else "added"
            out.append(scope.finding("PG501", skip.line, f"{scope.label}: {skip.what} {verb}"))
    return out


def assertions(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    out: list[Finding] = []
    base_live, head_live, head_dead = base.live, head.live, head.dead
    newly_dead: list[Assertion] = []
    if head_dead:
        moved = _subtract((a.key for a in head_dead), (a.key for a in base.dead))
        newly_dead = [a for a in head_dead if _take(moved, a.key)]
    drop = len(base_live) - len(head_live)
    if newly_dead and (drop > 0 or _any_was_live(newly_dead, base_live)):
        out.extend(_dead(scope, newly_dead, len(base_live)))
    removed = drop - len(newly_dead)
    if removed > 0:
        out.extend(_removed(scope, base_live, head_live, removed))
    out.extend(_vacuous(scope, base, head))
    return out


def _any_was_live(dead: list[Assertion], live: tuple[Assertion, ...]) -> bool:
    was_live = {a.key for a in live}
    return any(a.key in was_live for a in dead)


def _dead(scope: Scope, dead: list[Assertion], total: int) -> list[Finding]:
    by_reason: dict[str, list[Assertion]] = {}
    for assertion in dead:
        by_reason.setdefault(assertion.dead or "", []).append(assertion)
    return [
        scope.finding(
            "PG504",
            group[0].line,
            f"{scope.label}: {len(group)} of {plural(total, 'assert')} made dead, {reason}"
            if total
            else f"{scope.label}: {plural(len(group), 'assert')} made dead, {reason}",
        )
        for reason, group in by_reason.items()
    ]


def _removed(
    scope: Scope,
    base_live: tuple[Assertion, ...],
    head_live: tuple[Assertion, ...],
    removed: int,
) -> list[Finding]:
    base_keys = _counts(a.key for a in base_live)
    fresh = [a for a in head_live if not _take(base_keys, a.key)]
    if any(a.kind == "helper" for a in fresh):
        return []  # asserts moved into a helper the test now calls
    gone = _subtract((a.key for a in base_live), (a.key for a in head_live))
    lost = [a for a in base_live if _take(gone, a.key)]
    uncovered = [a for a in lost if not any(_covers(new, a) for new in fresh)]
    if not uncovered:
        return []
    count = min(removed, len(uncovered))
    first = uncovered[0]
    message = (
        f"{scope.label}: {count} of {plural(len(base_live), 'assert')} removed "
        f"(`{first.text}`, base line {first.line})"
    )
    return [scope.finding("PG502", first.line, message)]


def _covers(new: Assertion, old: Assertion) -> bool:
    """A consolidated assert (`assert (a, b) == (1, 2)`) still checks every operand of `old`."""
    return bool(old.operands) and all(contains(new.key, operand) for operand in old.operands)


def _vacuous(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    out: list[Finding] = []
    new = _subtract((v.key for v in head.vacuous), (v.key for v in base.vacuous))
    for vacuous in head.vacuous:
        if _take(new, vacuous.key):
            message = f"{scope.label}: `{vacuous.text}` {vacuous.why}"
            out.append(scope.finding("PG503", vacuous.line, message))
    if not head.weak:
        return out
    seen: set[str] = set()
    base_weak = {w.subject for w in base.weak}
    for weak in head.weak:
        if weak.kind != "truth" or weak.subject in seen or weak.subject in base_weak:
            continue  # None and type checks are PG541's (rules_loosened)
        if weak.subject in base.value_checked and weak.subject not in head.value_checked:
            seen.add(weak.subject)
            message = (
                f"{scope.label}: value check replaced by `{weak.text}`, which holds for any value"
            )
            out.append(scope.finding("PG503", weak.line, message))
    return out


def _aligned(
    base: Sequence[str], head: Sequence[str], *, replaced: bool = True
) -> list[tuple[int, int]]:
    # What the matcher gives in the common cases, without building it.
    if not base or not head:
        return []
    if base == head:
        return [(index, index) for index in range(len(base))]
    matcher = difflib.SequenceMatcher(None, list(base), list(head), autojunk=False)
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and replaced):
            pairs.extend(zip(range(i1, i2), range(j1, j2), strict=False))
    return pairs


def _builtin_exception(name: str) -> type[BaseException] | None:
    value = getattr(builtins, name, None)
    if isinstance(value, type) and issubclass(value, BaseException):
        return value
    return None


def _broadened(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    old, new = set(before), set(after)
    if new == old:
        return False
    if new & BROAD_EXCEPTIONS and not old & BROAD_EXCEPTIONS:
        return True
    if new > old:
        return True
    for name in new - old:
        wide = _builtin_exception(name)
        if wide is None:
            continue
        for base_name in old - new:
            narrow = _builtin_exception(base_name)
            if narrow is not None and narrow is not wide and issubclass(narrow, wide):
                return True
    return False


def raises(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    if not base.raises or not head.raises:
        return []  # nothing to align
    out: list[Finding] = []
    keys_b = [f"{r.kind}{r.exceptions}{r.match}" for r in base.raises]
    keys_h = [f"{r.kind}{r.exceptions}{r.match}" for r in head.raises]
    for i, j in _aligned(keys_b, keys_h):
        out.extend(_raises_pair(scope, base.raises[i], head.raises[j]))
    return out


def _raises_pair(scope: Scope, before: Raises, after: Raises) -> list[Finding]:
    out: list[Finding] = []
    if _broadened(before.exceptions, after.exceptions):
        message = (
            f"{scope.label}: {after.kind} broadened from {before.exceptions_text} "
            f"to {after.exceptions_text}"
        )
        out.append(scope.finding("PG505", after.line, message))
    if before.match is not None and before.match not in TRIVIAL_PATTERNS:
        if after.match is None:
            message = f"{scope.label}: {after.kind} match removed (was {before.match!r})"
            out.append(scope.finding("PG505", after.line, message))
        elif after.match in TRIVIAL_PATTERNS:
            message = (
                f"{scope.label}: {after.kind} match weakened from {before.match!r} "
                f"to {after.match!r}"
            )
            out.append(scope.finding("PG505", after.line, message))
    return out


def tolerances(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    if not head.tolerances:
        return []
    out: list[Finding] = []
    pairs = _aligned([t.align for t in base.tolerances], [t.align for t in head.tolerances])
    for i, j in pairs:
        out.extend(_loosened(scope, base.tolerances[i], head.tolerances[j]))
    paired = {j for _, j in pairs}
    tolerant = {t.subject for t in base.tolerances}
    for j, after in enumerate(head.tolerances):
        subject = after.subject
        if j in paired or subject is None or subject in tolerant:
            continue
        if subject in base.exact_checked and subject not in head.exact_checked:
            out.append(_exact_to_tolerance(scope, after))
    return out


def _loosened(scope: Scope, before: Tolerance, after: Tolerance) -> list[Finding]:
    old = {param.name: param for param in before.params}
    out: list[Finding] = []
    for param in after.params:
        prior = old.get(param.name)
        if prior is None:
            continue
        looser = param.value > prior.value if param.higher_is_looser else param.value < prior.value
        if looser:
            verb = "raised" if param.higher_is_looser else "lowered"
            message = (
                f"{scope.label}: {after.kind} {param.name} {verb} from {fmt(prior.value)} "
                f"to {fmt(param.value)}"
            )
            out.append(scope.finding("PG506", after.line, message))
    return out


def _exact_to_tolerance(scope: Scope, after: Tolerance) -> Finding:
    defaults = {p.name: p for p in after.params}
    explicit = [defaults[name] for name in sorted(after.explicit) if name in defaults]
    shown = ", ".join(f"{p.name}={fmt(p.value)}" for p in explicit) or "default tolerance"
    message = f"{scope.label}: exact comparison replaced by {after.kind} ({shown})"
    severity = Severity.ERROR if explicit else Severity.WARNING
    return scope.finding("PG506", after.line, message, severity=severity)


def literals(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    out: list[Finding] = []
    aligned = _aligned([x.align for x in base.literals], [x.align for x in head.literals])
    for i, j in aligned:
        before, after = base.literals[i], head.literals[j]
        if before.align != after.align or before.values == after.values:
            continue
        changes = [(a, b) for a, b in zip(before.values, after.values, strict=False) if a != b]
        shown = "; ".join(f"{a} -> {b}" for a, b in changes[:3])
        message = f"{scope.label}: expected value changed in a fixture-plane test ({shown})"
        out.append(scope.finding("PG507", after.line, message))
    return out


def params(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    if not base.params:
        return []
    out: list[Finding] = []
    after_by_names = {p.argnames: p for p in head.params}
    for before in base.params:
        after = after_by_names.get(before.argnames)
        out.extend(_params_pair(scope, before, after))
    return out


def _params_pair(scope: Scope, before: Params, after: Params | None) -> list[Finding]:
    total = len(before.cases) if before.cases is not None else None
    if after is None:
        count = plural(total, "case") if total is not None else "its cases"
        message = f"{scope.label}: parametrize over '{before.argnames}' removed ({count})"
        return [scope.finding("PG508", before.line, message)]
    if before.cases is None or after.cases is None:
        return []
    gone = _subtract((k for k, _ in before.cases), (k for k, _ in after.cases))
    lost = [short(node) for k, node in before.cases if _take(gone, k)]
    if not lost:
        return []
    shown = ", ".join(lost[:3]) + (", …" if len(lost) > 3 else "")
    message = (
        f"{scope.label}: {len(lost)} of {plural(len(before.cases), 'parametrize case')} removed "
        f"for '{before.argnames}': {shown}"
    )
    return [scope.finding("PG508", after.line, message)]


def collection(ctx: Context, base: FuncInfo, head: FuncInfo) -> list[Finding]:
    out: list[Finding] = []
    if base.collected and not head.collected:
        if head.qualname != base.qualname:
            why = f"renamed to {head.qualname}, which pytest does not collect"
        else:
            why = "no longer collected (`__test__ = False`, a class `__init__`, or a fixture)"
        out.append(ctx.finding("PG510", head.line, f"{base.qualname}: {why}", test=base.qualname))
    if head.collected and head.is_async and not base.is_async and not ctx.async_plugin:
        message = f"{head.qualname}: made `async def`; {ASYNC_HINT}"
        out.append(ctx.finding("PG511", head.line, message, test=head.qualname))
    return out


def added_async(ctx: Context, head: FuncInfo) -> list[Finding]:
    if head.collected and head.is_async and not ctx.async_plugin:
        message = f"{head.qualname}: new `async def` test; {ASYNC_HINT}"
        return [ctx.finding("PG511", head.line, message, test=head.qualname)]
    return []


def deleted(ctx: Context, base: FuncInfo, facts: Facts) -> list[Finding]:
    if not base.collected:
        return []
    count = plural(len(facts.live), "assert")
    message = f"{base.qualname}: test deleted (it had {count})"
    return [ctx.finding("PG509", base.line, message, test=base.qualname)]


def shadowed(
    ctx: Context, base: Sequence[tuple[str, int]], head: Sequence[tuple[str, int]], kind: str
) -> list[Finding]:
    """Definitions of one name: a second one replaces the first, which never runs."""
    lines: dict[str, list[int]] = {}
    for name, line in head:
        lines.setdefault(name, []).append(line)
    if len(lines) == len(head):
        return []  # no name defined twice
    base_count = _counts(name for name, _ in base)
    out: list[Finding] = []
    for name, found in lines.items():
        if len(found) < 2 or len(found) <= base_count.get(name, 0):
            continue
        for line in found[:-1]:
            message = (
                f"{name}: {kind} at line {line} is shadowed by a second definition at line "
                f"{found[-1]}; only the last one runs"
            )
            out.append(ctx.finding("PG512", line, message, test=name))
    return out
