"""How a change to a test file weakens its tests (step 5, PG5xx): a pure core, sources in,
findings out. `analyze_file` compares the base and head versions of one test file with `ast`,
pairing functions by qualified name and renames by body similarity.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from planegate import syntax
from planegate.analysis.hunks import (
    is_conftest,
    rules_conftest,
    rules_hypothesis,
    rules_loosened,
    rules_tests,
)
from planegate.analysis.hunks.facts import EMPTY, Facts
from planegate.analysis.hunks.fallback import line_check
from planegate.analysis.hunks.item_facts import class_facts, function_facts
from planegate.analysis.hunks.modfacts import ModuleFacts, module_facts
from planegate.analysis.hunks.pairing import pair_functions
from planegate.analysis.hunks.parsed_module import (
    FuncInfo,
    Module,
    ModuleNames,
    module_names,
    module_of,
    module_statements,
    parse_module,
)
from planegate.analysis.hunks.placement import Context, Scope
from planegate.analysis.hunks.unchanged import Sparse, sparsify
from planegate.findings import Finding

__all__ = ["analyze_file", "compare_sources"]


def analyze_file(  # noqa: PLR0913 - one file's two sides and its plane, keyword-only
    path: str,
    base_source: str | None,
    head_source: str | None,
    *,
    plane: str | None,
    owner: str,
    fixture_plane: bool,
    async_plugin: bool = False,
) -> list[Finding]:
    """Every weakening of the tests in `path`; `None` sources mean added / deleted file."""
    if base_source == head_source:
        return []
    conftest = is_conftest(path)
    ctx = Context(path, owner, plane, fixture_plane, async_plugin, conftest)
    return compare_sources(ctx, base_source or "", head_source or "", use_blocks=True)


def compare_sources(
    ctx: Context, base_text: str, head_text: str, *, use_blocks: bool
) -> list[Finding]:
    """`use_blocks` blanks the top-level blocks both sides share before parsing (same result,
    cost follows the size of the change)."""
    sparse = sparsify(base_text, head_text) if use_blocks else None
    if sparse is not None:
        try:
            split = _split_parse(sparse)
            base_tree, head_tree, names = split or (
                syntax.parse(sparse.base),
                syntax.parse(sparse.head),
                None,
            )
        except (SyntaxError, ValueError):
            sparse = None
        else:
            collectable = not ctx.conftest
            base_helpers, head_helpers = sparse.base_helpers, sparse.head_helpers
            base = module_of(base_tree, collectable=collectable, helpers=base_helpers, names=names)
            head = module_of(head_tree, collectable=collectable, helpers=head_helpers, names=names)
            return _sorted(_Comparison(ctx, base, head, sparse.base, sparse.head, True).run())
    try:
        base = parse_module(base_text, collectable=not ctx.conftest)
    except (SyntaxError, ValueError) as error:
        return line_check(ctx, base_text, head_text, "base", _syntax(error))
    try:
        head = parse_module(head_text, collectable=not ctx.conftest)
    except (SyntaxError, ValueError) as error:
        return line_check(ctx, base_text, head_text, "head", _syntax(error))
    return _sorted(_Comparison(ctx, base, head, base_text, head_text).run())


def _sorted(findings: list[Finding]) -> list[Finding]:
    if len(findings) < 2:
        return findings
    return sorted(findings, key=lambda f: (f.line or 0, f.rule, f.message))


def _split_parse(
    sparse: Sparse,
) -> tuple[ast.Module, ast.Module, ModuleNames | None] | None:
    """Both sides' trees, parsing the header they share once, and their `module_names` when
    they come from the header alone; None when there is no such header or a part does not
    parse alone (the whole sides are parsed then).

    A header that parses alone ends where a statement does, so each side parses as the
    header's statements followed by those of the rest, at the same lines when the header is
    blanked. A `__future__` import could change how the rest parses: not split then."""
    size = sparse.header
    header = sparse.base[:size]
    if not size or "__future__" in header:
        return None
    # As many lines as the header: the parser ends a line at `\r` too, not only at `\r\n`
    blank = "\n" * (header.count("\n") + header.count("\r") - header.count("\r\n"))
    try:
        shared = syntax.parse(header).body
        base = syntax.parse(blank + sparse.base[size:])
        head = syntax.parse(blank + sparse.head[size:])
    except (SyntaxError, ValueError):
        return None
    names = module_names(shared) if _only_defs(base.body) and _only_defs(head.body) else None
    base.body[:0] = shared
    head.body[:0] = shared
    return base, head, names


def _only_defs(body: list[ast.stmt]) -> bool:
    """Whether `body` holds nothing `module_names` reads (its blocks are defs and classes, but a
    line of them may hold more statements: `"doc"; import os`)."""
    return all(type(stmt) in _DEFINITIONS for stmt in body)


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _syntax(error: SyntaxError | ValueError) -> SyntaxError:
    return error if isinstance(error, SyntaxError) else SyntaxError(str(error))


def _context_key(module: Module) -> str:
    """What a function's facts depend on besides its own text."""
    parts = [
        ast.dump(stmt)
        for stmt in module_statements(module.tree.body)
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    parts.append(",".join(sorted(module.helpers)))
    return "\n".join(parts)


@dataclass
class _Comparison:
    ctx: Context
    base: Module
    head: Module
    base_text: str
    head_text: str
    same_context: bool | None = None
    _facts: dict[tuple[bool, int], Facts] = field(default_factory=dict)

    def facts(self, info: FuncInfo, head: bool) -> Facts:
        slot = (head, id(info.node))
        found = self._facts.get(slot)
        if found is None:
            module = self.head if head else self.base
            found = function_facts(module, info.node, literals=self.ctx.fixture_plane)
            self._facts[slot] = found
        return found

    def run(self) -> list[Finding]:
        out: list[Finding] = []
        base_eff, head_eff = self.base.effective(), self.head.effective()
        pairing = pair_functions(base_eff, head_eff)
        same_context = self.same_context
        if same_context is None:
            same_context = _context_key(self.base) == _context_key(self.head)
        base_lines, head_lines = self.base_text.splitlines(), self.head_text.splitlines()
        for before, after in pairing.pairs:
            if same_context and _same_text(before, after, base_lines, head_lines):
                continue
            out.extend(self.pair(before, after))
        for after in pairing.added:
            out.extend(self.added(after))
        for before in pairing.removed:
            out.extend(self.removed(before))
        out.extend(self.classes(pairing.pairs))
        out.extend(self.shadowing(head_eff))
        out.extend(self.module_level(base_eff, head_eff, same_context))
        return out

    def pair(self, before: FuncInfo, after: FuncInfo) -> list[Finding]:
        ctx = self.ctx
        base, head = self.facts(before, False), self.facts(after, True)
        label = after.qualname
        test = (
            after.qualname if after.collected else (before.qualname if before.collected else None)
        )
        scope = Scope(ctx, label, test)
        out = rules_tests.skips_added(scope, base.skips, head.skips)
        out += rules_tests.assertions(scope, base, head)
        out += rules_loosened.loosened(scope, base, head)
        out += rules_tests.raises(scope, base, head)
        out += rules_tests.tolerances(scope, base, head)
        if ctx.fixture_plane:
            out += rules_tests.literals(scope, base, head)
        out += rules_tests.params(scope, base, head)
        out += rules_tests.collection(ctx, before, after)
        out += rules_hypothesis.compare(scope, (self.base, self.head), base, head)
        return out

    def added(self, after: FuncInfo) -> list[Finding]:
        head = self.facts(after, True)
        test = after.qualname if after.collected else None
        scope = Scope(self.ctx, after.qualname, test)
        out = rules_tests.skips_added(scope, (), head.skips)
        out += rules_tests.assertions(scope, EMPTY, head)
        out += rules_tests.added_async(self.ctx, after)
        return out

    def removed(self, before: FuncInfo) -> list[Finding]:
        facts = self.facts(before, False)
        out = rules_tests.deleted(self.ctx, before, facts)
        scope = Scope(self.ctx, before.qualname)
        out += rules_hypothesis.invariants_dropped(scope, facts, before.line)
        return out

    def classes(self, pairs: tuple[tuple[FuncInfo, FuncInfo], ...]) -> list[Finding]:
        if not self.head.classes:
            return []
        renamed = {
            b.classes[-1].qualname: a.classes[-1].qualname
            for b, a in pairs
            if b.classes and a.classes
        }
        base_classes = self.base.effective_classes()
        back = {new: old for old, new in renamed.items()}
        out: list[Finding] = []
        for name, info in self.head.effective_classes().items():
            head = class_facts(self.head, info.node)
            if not head.skips and not head.params:
                continue
            old = base_classes.get(name) or base_classes.get(back.get(name, ""))
            base = class_facts(self.base, old.node) if old is not None else EMPTY
            test = name if info.collected else None
            scope = Scope(self.ctx, name, test)
            out += rules_tests.skips_added(scope, base.skips, head.skips)
            out += rules_tests.params(scope, base, head)
        return out

    def shadowing(self, head_eff: dict[str, FuncInfo]) -> list[Finding]:
        def defs(module: Module) -> list[tuple[str, int]]:
            return [(f.qualname, f.line) for f in module.functions if f.name.startswith("test")]

        def class_defs(module: Module) -> list[tuple[str, int]]:
            return [(c.qualname, c.node.lineno) for c in module.classes if c.collected]

        out: list[Finding] = []
        if len(head_eff) < len(self.head.functions):  # some name is defined twice
            out += rules_tests.shadowed(self.ctx, defs(self.base), defs(self.head), "test")
        if self.head.classes:
            base_classes, head_classes = class_defs(self.base), class_defs(self.head)
            out += rules_tests.shadowed(self.ctx, base_classes, head_classes, "class")
        return out

    def module_level(
        self, base_eff: dict[str, FuncInfo], head_eff: dict[str, FuncInfo], same_context: bool
    ) -> list[Finding]:
        ctx = self.ctx
        out: list[Finding] = []
        if not same_context:
            out += self.import_time()
        if ctx.conftest:
            before = self._module_functions(base_eff, False)
            after = self._module_functions(head_eff, True)
            out += rules_conftest.hooks(ctx, before, after)
            out += rules_conftest.autouse(ctx, before, after)
        return out

    def import_time(self) -> list[Finding]:
        """Module-level statements; skipped when they are the same on both sides."""
        ctx = self.ctx
        base, head = module_facts(self.base), module_facts(self.head)
        out = rules_tests.skips_added(Scope(ctx, "module"), base.skips, head.skips)
        out += rules_conftest.new_entries(
            ctx, "PG522", "pytest_plugins", base.plugins, head.plugins
        )
        out += _hypothesis_module(ctx, (self.base, self.head), base, head)
        if ctx.fixture_plane:
            out += _constants(ctx, base, head)
        if ctx.conftest:
            out += rules_conftest.new_entries(
                ctx, "PG521", "collect_ignore", base.collect_ignore, head.collect_ignore
            )
        return out

    def _module_functions(
        self, functions: dict[str, FuncInfo], head: bool
    ) -> dict[str, tuple[FuncInfo, Facts]]:
        return {
            name: (info, self.facts(info, head))
            for name, info in functions.items()
            if not info.in_class
        }


def _same_text(before: FuncInfo, after: FuncInfo, base: list[str], head: list[str]) -> bool:
    if before.qualname != after.qualname or before.collected != after.collected:
        return False
    return _lines(before, base) == _lines(after, head)


def _lines(info: FuncInfo, lines: list[str]) -> list[str]:
    node = info.node
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return lines[start - 1 : node.end_lineno or node.lineno]


def _hypothesis_module(
    ctx: Context, modules: tuple[Module, Module], base: ModuleFacts, head: ModuleFacts
) -> list[Finding]:
    out = rules_hypothesis.settings_sites(ctx, base.settings, head.settings)
    if base.profile is not None or head.profile is not None:
        old = base.profile.value if base.profile else "(default)"
        new = head.profile.value if head.profile else "(default)"
        if old != new:
            line = head.profile.line if head.profile else None
            message = f"settings.load_profile changed from {old} to {new}"
            out.append(ctx.finding("PG518", line, message))
    out += rules_hypothesis.module_strategies(
        ctx,
        modules,
        {name: b.node for name, b in base.strategies.items()},
        {name: b.node for name, b in head.strategies.items()},
        {name: b.line for name, b in head.strategies.items()},
    )
    if head.filters > base.filters:
        message = f"module strategies: .filter() added ({base.filters} -> {head.filters})"
        out.append(ctx.finding("PG514", None, message))
    return out


def _constants(ctx: Context, base: ModuleFacts, head: ModuleFacts) -> list[Finding]:
    out: list[Finding] = []
    for name, after in head.constants.items():
        before = base.constants.get(name)
        if before is not None and before.key != after.key:
            message = (
                f"{name}: expected data changed in a fixture-plane file "
                f"({ast.unparse(before.node)[:40]} -> {ast.unparse(after.node)[:40]})"
            )
            out.append(ctx.finding("PG507", after.line, message))
    return out
