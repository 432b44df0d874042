"""conftest.py rules: new hooks, collect_ignore, pytest_plugins, autouse fixtures that skip or
patch (PG520-PG523, PG525)."""

from __future__ import annotations

from planegate.analysis.hunks.facts import Facts
from planegate.analysis.hunks.keys import key
from planegate.analysis.hunks.modfacts import Entry
from planegate.analysis.hunks.parsed_module import FuncInfo
from planegate.analysis.hunks.placement import Context
from planegate.findings import Finding, Severity


def hooks(
    ctx: Context,
    base: dict[str, tuple[FuncInfo, Facts]],
    head: dict[str, tuple[FuncInfo, Facts]],
) -> list[Finding]:
    out: list[Finding] = []
    for name, (info, _) in head.items():
        if info.in_class or not name.startswith("pytest_"):
            continue
        before = base.get(name)
        if before is None:
            message = f"new hook {name}: it can change what runs or how results are reported"
            out.append(ctx.finding("PG520", info.line, message))
        elif key(before[0].node) != key(info.node):
            message = f"hook {name} changed: review what it now does to collection or reports"
            out.append(ctx.finding("PG525", info.line, message, severity=Severity.WARNING))
    return out


def new_entries(
    ctx: Context, rule: str, what: str, base: tuple[Entry, ...], head: tuple[Entry, ...]
) -> list[Finding]:
    known = {entry.value for entry in base}
    out: list[Finding] = []
    for entry in head:
        if entry.value not in known:
            known.add(entry.value)
            out.append(ctx.finding(rule, entry.line, f"{what} adds {entry.value!r}"))
    return out


def autouse(
    ctx: Context,
    base: dict[str, tuple[FuncInfo, Facts]],
    head: dict[str, tuple[FuncInfo, Facts]],
) -> list[Finding]:
    out: list[Finding] = []
    for name, (info, facts) in head.items():
        if not facts.autouse or not (facts.patches or facts.skips):
            continue
        before = base.get(name)
        old = before[1] if before is not None and before[1].autouse else None
        new_patches = set(facts.patches) - set(old.patches if old else ())
        new_skips = {s.key for s in facts.skips} - {s.key for s in (old.skips if old else ())}
        if not new_patches and not new_skips:
            continue
        does = []
        if new_skips:
            does.append("skips")
        if new_patches:
            does.append(f"patches ({len(new_patches)} new)")
        message = f"autouse fixture {name} {' and '.join(does)} in every test it reaches"
        out.append(ctx.finding("PG523", info.line, message))
    return out
