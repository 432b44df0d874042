"""Hypothesis rules: example budget, phases, seeds, explicit examples, assume/filter,
narrowed strategies and dropped invariants (PG513-PG519)."""

from __future__ import annotations

import ast
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from planegate.analysis.hunks.facts import Facts
from planegate.analysis.hunks.keys import key
from planegate.analysis.hunks.parsed_module import Module, number, short
from planegate.analysis.hunks.placement import Context, Scope, fmt, plural
from planegate.analysis.hunks.strategies import strategy_name
from planegate.findings import Finding

DEFAULT_MAX_EXAMPLES = 100.0
DEFAULT_STEP_COUNT = 50.0
ALL_PHASES = frozenset({"explicit", "reuse", "generate", "target", "shrink", "explain"})
# Dropping shrink or explain changes how a failure is reported, not whether it is found.
SEARCH_PHASES = frozenset({"explicit", "reuse", "generate", "target"})
RANDOMNESS = ("derandomize", "database")

# Positional parameters of the strategies whose bounds we read.
_POSITIONAL: dict[str, tuple[str, ...]] = {
    "integers": ("min_value", "max_value"),
    "floats": ("min_value", "max_value"),
    "decimals": ("min_value", "max_value"),
    "fractions": ("min_value", "max_value"),
    "dates": ("min_value", "max_value"),
    "datetimes": ("min_value", "max_value"),
    "times": ("min_value", "max_value"),
    "timedeltas": ("min_value", "max_value"),
    "lists": ("elements", "min_size", "max_size"),
    "sets": ("elements", "min_size", "max_size"),
    "frozensets": ("elements", "min_size", "max_size"),
    "iterables": ("elements", "min_size", "max_size"),
    "text": ("alphabet", "min_size", "max_size"),
    "binary": ("min_size", "max_size"),
    "dictionaries": ("keys", "values", "dict_class", "min_size", "max_size"),
}
_SWITCHES = ("allow_nan", "allow_infinity", "allow_subnormal", "allow_imaginary")


def _settings_value(
    settings: Mapping[str, ast.expr], name: str, default: float | None
) -> float | None:
    node = settings.get(name)
    if node is None:
        return default
    return number(node)


def _phases(settings: Mapping[str, ast.expr]) -> frozenset[str]:
    node = settings.get("phases")
    if not isinstance(node, ast.List | ast.Tuple | ast.Set):
        return ALL_PHASES
    names = set()
    for element in node.elts:
        if isinstance(element, ast.Attribute):
            names.add(element.attr)
        elif isinstance(element, ast.Name):
            names.add(element.id)
    return frozenset(names)


def settings_changes(
    scope: Scope,
    before: Mapping[str, ast.expr],
    after: Mapping[str, ast.expr],
    line: int,
    generated: bool,
) -> list[Finding]:
    out: list[Finding] = []
    default = DEFAULT_MAX_EXAMPLES if generated else None
    for name, fallback in (("max_examples", default), ("stateful_step_count", DEFAULT_STEP_COUNT)):
        old = _settings_value(before, name, fallback)
        new = _settings_value(after, name, fallback)
        if old is not None and new is not None and new < old:
            shown = fmt(old) if name in before else f"the default {fmt(old)}"
            message = f"{scope.label}: {name} lowered from {shown} to {fmt(new)}"
            out.append(scope.finding("PG513", line, message))
    lost = (_phases(before) - _phases(after)) & SEARCH_PHASES
    if lost:
        message = f"{scope.label}: phases limited, {', '.join(sorted(lost))} no longer run"
        out.append(scope.finding("PG517", line, message))
    for name in RANDOMNESS:
        old_text = short(before[name]) if name in before else "(unset)"
        new_text = short(after[name]) if name in after else "(unset)"
        if old_text != new_text:
            message = f"{scope.label}: settings {name} changed from {old_text} to {new_text}"
            out.append(scope.finding("PG518", line, message))
    return out


def compare(
    scope: Scope,
    modules: tuple[Module, Module],
    base: Facts,
    head: Facts,
) -> list[Finding]:
    if not (_hypothesis(base) or _hypothesis(head)):
        return []
    out: list[Finding] = []
    generated = bool(base.given or head.given)
    if generated or base.has_settings or head.has_settings:
        out.extend(settings_changes(scope, base.settings, head.settings, head.line, generated))
    if base.seeds != head.seeds:
        old = ", ".join(base.seeds) or "(none)"
        new = ", ".join(head.seeds) or "(none)"
        message = f"{scope.label}: seed changed from {old} to {new}"
        out.append(scope.finding("PG518", head.line, message))
    out.extend(_examples(scope, base, head))
    out.extend(_assumptions(scope, base, head))
    out.extend(_strategies(scope, modules, base, head))
    if base.invariant and not head.invariant:
        message = f"{scope.label}: @invariant() removed; the state machine no longer checks it"
        out.append(scope.finding("PG519", head.line, message))
    return out


def _hypothesis(facts: Facts) -> bool:
    """Whether `facts` hold anything the rules here read (most tests use no Hypothesis)."""
    return bool(
        facts.given
        or facts.has_settings
        or facts.seeds
        or facts.examples
        or facts.assumes
        or facts.filters
        or facts.draws
        or facts.invariant
    )


def _examples(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    if not base.examples:
        return []
    gone = Counter(e.key for e in base.examples) - Counter(e.key for e in head.examples)
    lost = []
    for example in base.examples:
        if gone[example.key] > 0:
            gone[example.key] -= 1
            lost.append(example)
    if not lost:
        return []
    shown = ", ".join(e.text for e in lost[:3]) + (", …" if len(lost) > 3 else "")
    message = f"{scope.label}: {plural(len(lost), '@example case')} removed: {shown}"
    return [scope.finding("PG515", lost[0].line, message)]


def _assumptions(scope: Scope, base: Facts, head: Facts) -> list[Finding]:
    out: list[Finding] = []
    for what, before, after in (
        ("assume()", base.assumes, head.assumes),
        (".filter()", base.filters, head.filters),
    ):
        if len(after) > len(before):
            message = f"{scope.label}: {what} added ({len(before)} -> {len(after)})"
            out.append(scope.finding("PG514", after[-1], message))
    return out


def _strategies(
    scope: Scope,
    modules: tuple[Module, Module],
    base: Facts,
    head: Facts,
) -> list[Finding]:
    if not base.given and not base.draws:
        return []  # nothing to narrow
    out: list[Finding] = []
    after = dict(head.given)
    pairs: list[tuple[str, ast.expr, ast.expr]] = [
        (slot, node, after[slot]) for slot, node in base.given if slot in after
    ]
    if len(base.draws) == len(head.draws):
        pairs.extend(
            (f"draw {index + 1}", old, new)
            for index, (old, new) in enumerate(zip(base.draws, head.draws, strict=True))
        )
    for slot, old, new in pairs:
        why = narrowed(modules, old, new)
        if why:
            where = f"argument {int(slot) + 1}" if slot.isdigit() else slot
            message = f"{scope.label}: strategy for {where} narrowed: {why}"
            out.append(scope.finding("PG516", getattr(new, "lineno", head.line), message))
    return out


def _single(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return False
    values = node.args[0]
    return isinstance(values, ast.List | ast.Tuple | ast.Set) and len(values.elts) == 1


def _alternatives(modules: Module, node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _alternatives(modules, node.left) or [key(node.left)]
        right = _alternatives(modules, node.right) or [key(node.right)]
        return left + right
    if strategy_name(modules, node) == "one_of" and isinstance(node, ast.Call):
        args = node.args
        if len(args) == 1 and isinstance(args[0], ast.List | ast.Tuple):
            return [key(arg) for arg in args[0].elts]
        return [key(arg) for arg in args]
    return None


def _elements(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Call) and node.args:
        values = node.args[0]
        if isinstance(values, ast.List | ast.Tuple | ast.Set):
            return [key(element) for element in values.elts]
    return None


def narrowed(modules: tuple[Module, Module], old: ast.expr, new: ast.expr) -> str | None:
    """Why `new` generates strictly fewer values than `old`, or None when we cannot tell."""
    if key(old) == key(new):
        return None
    base_module, head_module = modules
    before = strategy_name(base_module, old)
    after = strategy_name(head_module, new)
    change = f"`{short(old, 40)}` -> `{short(new, 40)}`"
    if after == "just" and before != "just":
        return f"{change} (a single value)"
    if after == "sampled_from" and _single(new) and not (before == after and _single(old)):
        return f"{change} (a single value)"
    if before == after == "sampled_from":
        old_values, new_values = _elements(old), _elements(new)
        if old_values and new_values and set(new_values) < set(old_values):
            return f"{change} ({len(old_values) - len(new_values)} values dropped)"
    old_alts, new_alts = _alternatives(base_module, old), _alternatives(head_module, new)
    if old_alts and len(old_alts) > 1:
        candidates = new_alts if new_alts is not None else [key(new)]
        if set(candidates) < set(old_alts):
            return f"{change} (alternatives dropped)"
    if before is not None and before == after:
        assert isinstance(old, ast.Call) and isinstance(new, ast.Call)
        return _same_strategy(modules, before, old, new, change)
    return _chained(modules, old, new)


def _chained(modules: tuple[Module, Module], old: ast.expr, new: ast.expr) -> str | None:
    """`a.map(f)` against `b.map(f)`: compare `a` with `b`."""
    if not (isinstance(old, ast.Call) and isinstance(new, ast.Call)):
        return None
    if not (isinstance(old.func, ast.Attribute) and isinstance(new.func, ast.Attribute)):
        return None
    same_args = [key(arg) for arg in old.args] == [key(arg) for arg in new.args]
    if old.func.attr == new.func.attr and same_args:
        return narrowed(modules, old.func.value, new.func.value)
    return None


def _arguments(name: str, call: ast.Call) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    positional = _POSITIONAL.get(name, ())
    for index, arg in enumerate(call.args):
        out[positional[index] if index < len(positional) else str(index)] = arg
    out.update({kw.arg: kw.value for kw in call.keywords if kw.arg})
    return out


def _bound(node: ast.expr | None, lower: bool, size: bool) -> float | None:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        if size and lower:
            return 0.0
        return -math.inf if lower else math.inf
    return number(node)


def _same_strategy(
    modules: tuple[Module, Module], name: str, old: ast.Call, new: ast.Call, change: str
) -> str | None:
    before, after = _arguments(name, old), _arguments(name, new)
    reasons: list[str] = []
    for param in sorted(set(before) | set(after)):
        lower = param.startswith("min_")
        if lower or param.startswith("max_"):
            reason = _bound_change(param, before.get(param), after.get(param), lower)
            if reason:
                reasons.append(reason)
        elif param in _SWITCHES:
            if truth_of(before.get(param)) is not False and truth_of(after.get(param)) is False:
                reasons.append(f"{param} turned off")
        elif param in before and param in after:
            inner = narrowed(modules, before[param], after[param])
            if inner:
                return inner
    return f"{change} ({'; '.join(reasons)})" if reasons else None


def truth_of(node: ast.expr | None) -> bool | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _bound_change(
    param: str, old: ast.expr | None, new: ast.expr | None, lower: bool
) -> str | None:
    size = param.endswith("_size")
    before, after = _bound(old, lower, size), _bound(new, lower, size)
    if before is None or after is None:
        if old is None and new is not None:
            return f"{param} added"
        return None
    tighter = after > before if lower else after < before
    if not tighter:
        return None
    shown = "unbounded" if math.isinf(before) else fmt(before)
    verb = "raised" if lower else "lowered"
    return f"{param} {verb} from {shown} to {fmt(after)}"


def module_strategies(
    ctx: Context,
    modules: tuple[Module, Module],
    before: dict[str, ast.expr],
    after: dict[str, ast.expr],
    lines: dict[str, int],
) -> list[Finding]:
    out: list[Finding] = []
    for name, old in before.items():
        new = after.get(name)
        if new is None:
            continue
        why = narrowed(modules, old, new)
        if why:
            out.append(ctx.finding("PG516", lines[name], f"{name}: strategy narrowed: {why}"))
    return out


def settings_sites(
    ctx: Context,
    before: dict[str, tuple[dict[str, ast.expr], int]],
    after: dict[str, tuple[dict[str, ast.expr], int]],
) -> list[Finding]:
    out: list[Finding] = []
    for site, (values, line) in after.items():
        old = before.get(site, ({}, line))[0]
        out.extend(settings_changes(Scope(ctx, site), old, values, line, True))
    return out


def invariants_dropped(scope: Scope, facts: Facts, line: int) -> Sequence[Finding]:
    if not facts.invariant:
        return ()
    message = f"{scope.label}: invariant removed; the state machine no longer checks it"
    return (scope.finding("PG519", line, message),)
