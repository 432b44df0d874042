"""`planegate init --split`: move a mixed file's property tests into a sibling `_props` file.

Pure: source text in, the two new texts (or the reason the file cannot be split) out.
The property file gets the moved tests (whole functions, whole classes, or a copy of a
class holding only its property tests and its non-test members) and the module-level code
they need: the imports they use, helpers and fixtures they name (also by argument), and what
every test of the module relies on (autouse fixtures, xunit set-up, `pytestmark`, module-level
statements that bind nothing). The moved tests leave the original; so do the imports only
they used. The shell checks the result by collecting again and reverts what does not agree.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from planegate import syntax
from planegate.init.split_names import (
    alias_binding,
    always_carried,
    bound_names,
    loads_in,
    needed_names,
)

Span = tuple[int, int]  # 1-based first and last line


@dataclass(frozen=True)
class Split:
    remaining: str
    props: str


def props_path(path: str) -> str:
    """`tests/test_x.py` -> `tests/test_x_props.py`; `x_test.py` -> `x_props_test.py`."""
    pure = PurePosixPath(path)
    stem = pure.stem
    name = f"{stem[:-5]}_props_test.py" if stem.endswith("_test") else f"{stem}_props.py"
    return str(pure.with_name(name))


def _is_test(node: ast.stmt) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name.startswith("test")
    if isinstance(node, ast.ClassDef):
        return any(_is_test(child) for child in node.body)
    return False


@dataclass
class _Plan:
    lines: list[str]
    tree: ast.Module
    moved: set[int] = field(default_factory=set)  # module statements moved whole
    split: dict[int, set[str]] = field(default_factory=dict)  # class index -> moved methods
    carried: set[int] = field(default_factory=set)
    need: dict[int, set[str]] = field(default_factory=dict)  # carried import -> names needed

    def span(self, index: int, body: list[ast.stmt] | None = None) -> Span:
        nodes = self.tree.body if body is None else body
        node = nodes[index]
        first = min([node.lineno, *(d.lineno for d in _decorators(node))])
        floor = (nodes[index - 1].end_lineno or 0) if index else 0
        while first - 1 > floor and self.lines[first - 2].lstrip().startswith("#"):
            first -= 1
        return first, node.end_lineno or node.lineno

    def text(self, span: Span) -> str:
        return "".join(self.lines[span[0] - 1 : span[1]]).rstrip() + "\n"


def _decorators(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.decorator_list
    return []


def split_source(source: str, moved: set[str], origin: str) -> Split | str:
    """Move the functions named by `moved` (`test_x`, `TestC::test_y`); a reason if it can't."""
    try:
        tree = syntax.parse(source)
    except SyntaxError as error:
        return f"does not parse (line {error.lineno})"
    plan = _Plan(source.splitlines(keepends=True), tree)
    problem = _place(plan, moved) or _carry(plan) or _stays_independent(plan)
    if problem:
        return problem
    remaining = _prune_imports(_remove(plan), tree)
    props = _compose(plan, origin)
    for label, text in (("the remaining file", remaining), ("the property file", props)):
        try:
            syntax.parse(text)
        except SyntaxError as error:
            return f"{label} would not parse (line {error.lineno})"
    return Split(remaining, props)


def _place(plan: _Plan, moved: set[str]) -> str | None:
    found: set[str] = set()
    for index, node in enumerate(plan.tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in moved:
            plan.moved.add(index)
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names = {f"{node.name}::{getattr(c, 'name', '')}" for c in node.body if _is_test(c)}
            methods = names & moved
            found |= methods
            if methods and methods == names:
                plan.moved.add(index)
            elif methods:
                plan.split[index] = {name.rsplit("::", 1)[1] for name in methods}
    missing = sorted(moved - found)
    if missing:
        return f"{missing[0]} is not a function of the file or of a class in it (inherited?)"
    return None


def _carry(plan: _Plan) -> str | None:
    body = plan.tree.body
    unused = _unused_imports(body)
    bindings: dict[str, list[int]] = {}
    for index, node in enumerate(body):
        for name in bound_names(node):
            bindings.setdefault(name, []).append(index)
    wanted: list[str] = []
    for index in sorted(plan.moved):
        wanted += needed_names(body[index])
    for index, methods in plan.split.items():
        wanted += _class_needs(body[index], methods)
    for index, node in enumerate(body):
        if index not in plan.moved and index not in plan.split and always_carried(node, unused):
            plan.carried.add(index)
            plan.need[index] = bound_names(node)
            wanted += needed_names(node)
    return _close(plan, bindings, wanted)


def _unused_imports(body: list[ast.stmt]) -> set[str]:
    used = loads_in(body)
    return {
        alias_binding(alias)
        for node in body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
        if alias_binding(alias) not in used
    }


def _class_needs(node: ast.stmt, methods: set[str]) -> list[str]:
    assert isinstance(node, ast.ClassDef)
    names = [*node.bases, *node.keywords, *node.decorator_list]
    wanted = [n for part in names for n in needed_names(part)]
    for child in node.body:
        if not _is_test(child) or getattr(child, "name", "") in methods:
            wanted += needed_names(child)
    return wanted


def _close(plan: _Plan, bindings: dict[str, list[int]], wanted: list[str]) -> str | None:
    body = plan.tree.body
    seen: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for index in bindings.get(name, []):
            if index in plan.moved or index in plan.split:
                continue
            node = body[index]
            if _is_test(node):
                return f"the property tests need {name}, which holds tests that stay"
            plan.need.setdefault(index, set()).add(name)
            if index not in plan.carried:
                plan.carried.add(index)
                wanted += needed_names(node)
    return None


def _stays_independent(plan: _Plan) -> str | None:
    body = plan.tree.body
    gone = {name for index in plan.moved for name in bound_names(body[index])}
    staying: list[ast.stmt] = []
    for index, node in enumerate(body):
        if index in plan.split:
            assert isinstance(node, ast.ClassDef)
            methods = plan.split[index]
            staying += [c for c in node.body if getattr(c, "name", "") not in methods]
        elif index not in plan.moved:
            staying.append(node)
    used = gone & loads_in(staying)
    if used:
        return f"{sorted(used)[0]} moves but code that stays uses it"
    return None


def _compose(plan: _Plan, origin: str) -> str:
    body = plan.tree.body
    heading = list(itertools.takewhile(lambda line: line.startswith("#"), plan.lines))
    text = "".join(heading) + ("\n" if heading else "")  # a license or coding header
    text += f'"""Property tests of {origin} (moved by `planegate init --split`)."""\n'
    previous: int | None = None
    for index in sorted(plan.moved | plan.carried | set(plan.split)):
        node = body[index]
        if index in plan.split:
            chunk = _class_copy(plan, index)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and index in plan.carried:
            chunk = _import_text(plan, index)
        else:
            chunk = plan.text(plan.span(index))
        text += _gap(plan, previous, index) + chunk
        previous = index
    return text


def _gap(plan: _Plan, previous: int | None, index: int) -> str:
    """Neighbours in the original keep their spacing; other statements get two blank lines."""
    if previous is None:
        return "\n"
    body = plan.tree.body
    if all(isinstance(body[i], (ast.Import, ast.ImportFrom)) for i in (previous, index)):
        between = plan.lines[plan.span(previous)[1] : plan.span(index)[0] - 1]
        return "\n" if any(not line.strip() for line in between) else ""
    if previous == index - 1:
        blank = plan.span(index)[0] - plan.span(previous)[1] - 1
        return "\n" * min(max(blank, 0), 2)
    return "\n\n"


def _import_text(plan: _Plan, index: int) -> str:
    node = plan.tree.body[index]
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    need = plan.need.get(index, set())
    keep = [a for a in node.names if alias_binding(a) in need]
    if len(keep) == len(node.names) or not keep:
        return plan.text(plan.span(index))
    return _import_line(node, keep)


def _import_line(node: ast.Import | ast.ImportFrom, keep: list[ast.alias]) -> str:
    if not isinstance(node, ast.ImportFrom):
        return ast.unparse(ast.Import(keep)) + "\n"
    line = ast.unparse(ast.ImportFrom(node.module, keep, node.level))
    if len(line) <= 79:
        return line + "\n"
    head = line[: line.index(" import ") + len(" import ")]
    return head + "(\n" + "".join(f"    {ast.unparse(alias)},\n" for alias in keep) + ")\n"


def _class_copy(plan: _Plan, index: int) -> str:
    node = plan.tree.body[index]
    assert isinstance(node, ast.ClassDef)
    methods = plan.split[index]
    first, _ = plan.span(index)
    header_end = plan.span(0, node.body)[0] - 1
    members = [
        plan.text(plan.span(position, node.body))
        for position, child in enumerate(node.body)
        if not _is_test(child) or getattr(child, "name", "") in methods
    ]
    return "".join(plan.lines[first - 1 : header_end]) + "\n".join(members)


def _remove(plan: _Plan) -> str:
    drop: list[Span] = [plan.span(index) for index in plan.moved]
    for index, methods in plan.split.items():
        node = plan.tree.body[index]
        assert isinstance(node, ast.ClassDef)
        drop += [
            plan.span(position, node.body)
            for position, child in enumerate(node.body)
            if getattr(child, "name", "") in methods
        ]
    return _without(plan.lines, drop)


def _without(lines: list[str], spans: Iterable[Span]) -> str:
    gone: set[int] = set()
    for first, last in spans:
        gone |= set(range(first - 1, last))
        after = last
        while after < len(lines) and not lines[after].strip():
            gone.add(after)
            after += 1
    kept = [line for number, line in enumerate(lines) if number not in gone]
    return "".join(kept).rstrip() + "\n"


def _prune_imports(remaining: str, original: ast.Module) -> str:
    """Drop the import names only the moved tests used."""
    try:
        tree = syntax.parse(remaining)
    except SyntaxError:
        return remaining  # reported by the caller
    lost = loads_in(original.body) - loads_in(tree.body)
    lines = remaining.splitlines(keepends=True)
    edits: list[tuple[Span, str]] = []
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            continue
        keep = [a for a in node.names if alias_binding(a) not in lost]
        if len(keep) == len(node.names):
            continue
        span = (node.lineno, node.end_lineno or node.lineno)
        if not keep:
            edits.append((span, ""))
        else:
            edits.append((span, _import_line(node, keep)))
    for (first, last), text in sorted(edits, reverse=True):
        lines[first - 1 : last] = [text] if text else []
    return "".join(lines)
