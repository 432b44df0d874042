"""Production-code scan (exit 5): code under test that reaches for the test harness.

Runs on the diff of non-test files. Each construct is found in the base and in the head
version of a file by AST; only constructs the head adds are reported, so a project that
already reads `sys._getframe` is not blamed for it on every pull request.

`atexit` handlers are a warning (the gate's result stream closes before they run), and
`field(compare=False)` fails only on a field its class already compared (docs/runner.md)."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

import pathspec

from planegate import syntax
from planegate.analysis import reach
from planegate.analysis.entry_points import pytest11
from planegate.analysis.hunks import limits
from planegate.findings import Finding, Severity, Step

HARNESS_MODULES = frozenset({"pytest", "_pytest", "hypothesis"})
STACK_INSPECTION = frozenset(
    {
        "sys._getframe",
        "sys._current_frames",
        "inspect.stack",
        "inspect.currentframe",
        "inspect.getouterframes",
        "inspect.trace",
        "gc.get_objects",
        "gc.get_referrers",
    }
)
HARD_EXIT = frozenset({"os._exit", "posix._exit"})
FIELD_CALLS = frozenset(
    {"dataclasses.field", "attr.ib", "attr.attrib", "attr.field", "attrs.field"}
)
ENTRY_POINT_FILES = ("pyproject.toml", "setup.cfg", "entry_points.txt")


@dataclass(frozen=True)
class Hit:
    rule: str
    line: int
    key: str  # the construct as written, to match base and head versions
    message: str
    severity: Severity = Severity.ERROR


@dataclass(frozen=True)
class DataPaths:
    """The fixture plane's paths and locked data files: production code has no business there."""

    patterns: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    @cached_property
    def _spec(self) -> pathspec.GitIgnoreSpec:
        return pathspec.GitIgnoreSpec.from_lines(list(self.patterns))

    def refers(self, text: str) -> bool:
        path = text.strip().removeprefix("./")
        if not path or "\n" in path or len(path) > 300:
            return False
        if self.patterns and self._spec.match_file(path):
            return True
        folder = path.rstrip("/") + "/"
        return "/" in path and any(f.startswith(folder) for f in self.files)


def scan_change(  # noqa: PLR0913 - one file's two versions, and who answers for what
    path: str,
    base_text: str | None,
    head_text: str | None,
    data: DataPaths,
    owner: str,
    max_bytes: int = limits.MAX_FILE_BYTES,
    *,
    review: reach.Review | None = None,
) -> list[Finding]:
    """Findings for one changed non-test file: a Python module or a packaging file. The reach
    review's findings (PG590-PG595) go to `review.owner`, the person who reviews them."""
    review = review or reach.Review(owner=owner)
    name = path.rsplit("/", 1)[-1]
    if head_text is None or not (name in ENTRY_POINT_FILES or path.endswith(".py")):
        return []
    if limits.oversized(head_text, max_bytes):
        return [limits.finding(path, head_text, max_bytes, owner)]
    if limits.oversized(base_text, max_bytes):
        base_text = None  # every construct of the head then counts as added
    if name in ENTRY_POINT_FILES:
        return _findings(
            path,
            _added(_entry_point_hits(name, base_text), _entry_point_hits(name, head_text)),
            owner,
        )
    try:
        head_hits, head_fields = _scan(head_text, data, review.own)
    except SyntaxError:
        return []  # a syntax error shows up as a collection error in the run
    try:
        base_hits, base_fields = (
            _scan(base_text, data, review.own) if base_text is not None else ([], {})
        )
    except SyntaxError:
        base_hits, base_fields = [], {}
    hits = [
        hit
        for hit in _added(base_hits, head_hits)
        if hit.rule != "PG560" or _uncompares(hit.key, base_fields, head_fields)
    ]
    reviewed = [hit for hit in hits if hit.rule in reach.RULES]
    return _findings(path, [h for h in hits if h not in reviewed], owner) + _findings(
        path, reviewed, review.owner
    )


def _uncompares(key: str, base: dict[str, bool], head: dict[str, bool]) -> bool:
    """The field was compared on the base, or (a rename) the class stopped comparing another."""
    owner = key.rpartition(".")[0]
    if base.get(key):
        return True
    was = {k for k, compared in base.items() if compared and k.rpartition(".")[0] == owner}
    return any(not head.get(k) for k in was)


def _findings(path: str, hits: Iterable[Hit], owner: str) -> list[Finding]:
    return [
        Finding(
            hit.rule, Step.HUNKS, hit.severity, hit.message, path=path, line=hit.line, owner=owner
        )
        for hit in hits
    ]


def _added(base: Iterable[Hit], head: Iterable[Hit]) -> list[Hit]:
    seen = Counter((hit.rule, hit.key) for hit in base)
    added = []
    for hit in head:
        if seen[(hit.rule, hit.key)] > 0:
            seen[(hit.rule, hit.key)] -= 1
        else:
            added.append(hit)
    return added


def scan_source(
    source: str, data: DataPaths = DataPaths(), own: frozenset[str] = frozenset()
) -> list[Hit]:
    return _scan(source, data, own)[0]


def _scan(
    source: str, data: DataPaths, own: frozenset[str] = frozenset()
) -> tuple[list[Hit], dict[str, bool]]:
    """The hits, and each class field (`Class.name`) with whether equality compares it. The
    reach review adds its own, except on a line an older rule already stops."""
    tree = syntax.parse(source)
    scanner = _Scanner(import_aliases(tree), _docstrings(tree), data)
    scanner.visit(tree)
    stopped = {hit.line for hit in scanner.hits if hit.severity is Severity.ERROR}
    reached = [
        Hit(
            found.capability.rule,
            found.line,
            found.key,
            found.message,
            Severity.ERROR if found.capability.risk == "high" else Severity.WARNING,
        )
        for found in reach.review(tree, own)
        if found.line not in stopped
    ]
    return sorted([*scanner.hits, *reached], key=lambda hit: (hit.line, hit.rule)), scanner.fields


def import_aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> dotted name it was imported as (`from os import _exit as x`: x -> os._exit)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """`os._exit`, resolved through the module's imports; None for anything not a name chain."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value, aliases)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _is_sys_modules(node: ast.AST, aliases: dict[str, str]) -> bool:
    return dotted(node, aliases) == "sys.modules"


def _harness_name(node: ast.AST | None) -> str | None:
    text = node.value if isinstance(node, ast.Constant) else None
    if isinstance(text, str) and text.split(".", 1)[0] in HARNESS_MODULES:
        return text
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, aliases: dict[str, str], docstrings: set[int], data: DataPaths) -> None:
        self.aliases = aliases
        self.docstrings = docstrings
        self.data = data
        self.hits: list[Hit] = []
        self.classes: list[str] = []
        self.depth = 0  # function nesting: pytest_plugins only counts at module level
        self.fields: dict[str, bool] = {}  # Class.field -> compared by equality
        self.field: str | None = None  # the class field being assigned

    def hit(
        self,
        rule: str,
        node: ast.AST,
        message: str,
        key: str | None = None,
        severity: Severity = Severity.ERROR,
    ) -> None:
        text = key if key is not None else ast.unparse(node)
        self.hits.append(Hit(rule, getattr(node, "lineno", 1), text, message, severity))

    # imports -------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".", 1)[0] in HARNESS_MODULES:
                self.hit("PG550", node, _import_message(alias.name), f"import {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if not node.level and module.split(".", 1)[0] in HARNESS_MODULES:
            self.hit("PG550", node, _import_message(module), f"import {module}")

    # calls and references ------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func, self.aliases)
        first = node.args[0] if node.args else None
        if name in ("__import__", "importlib.import_module") and (mod := _harness_name(first)):
            self.hit("PG550", node, _import_message(mod), f"import {mod}")
        elif name == "atexit.register":
            self.hit(
                "PG555",
                node,
                "production code registers an atexit handler: it runs after the test session "
                "(the gate has closed its result stream by then; other runners may not have)",
                severity=Severity.WARNING,
            )
        elif name == "setattr" and first is not None and self._is_builtins(first):
            self.hit("PG556", node, _builtins_message(ast.unparse(node)))
        elif name in FIELD_CALLS or (name == "field" and "field" not in self.aliases):
            self._field(node, name or "field")
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_sys_modules(node.func.value, self.aliases)
            and (mod := _harness_name(first))
        ):
            self.hit("PG552", node, _modules_message(mod))
        self.generic_visit(node)

    def _field(self, node: ast.Call, name: str) -> None:
        flags = ("compare", "eq") if name.startswith("attr") else ("compare",)
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg in flags and isinstance(value, ast.Constant) and value.value is False:
                key = f"{self.field}" if self.field else ast.unparse(node)
                if self.field:
                    self.fields[self.field] = False
                self.hit(
                    "PG560",
                    node,
                    f"{ast.unparse(node)} takes the field out of equality: objects that differ "
                    "in it compare equal, so tests comparing them stop seeing the difference",
                    key,
                )

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self._reference(node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases:
            self._reference(node)

    def _reference(self, node: ast.Attribute | ast.Name) -> None:
        name = dotted(node, self.aliases)
        if name in STACK_INSPECTION:
            self.hit(
                "PG553",
                node,
                f"production code uses {name}: inspecting callers or the heap lets code tell "
                "that a test is calling it, or reach the test runner",
                name,
            )
        elif name in HARD_EXIT:
            self.hit(
                "PG554",
                node,
                f"production code uses {name}: it ends the process at once, skipping the test "
                "session's own ending (use sys.exit or raise SystemExit in a CLI)",
                name,
            )

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_sys_modules(node.value, self.aliases) and (mod := _harness_name(node.slice)):
            self.hit("PG552", node, _modules_message(mod))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if (
            len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and _is_sys_modules(node.comparators[0], self.aliases)
            and (mod := _harness_name(node.left))
        ):
            self.hit("PG552", node, _modules_message(mod))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or id(node) in self.docstrings:
            return
        if node.value.startswith("PYTEST_") and node.value.isupper():
            self.hit(
                "PG551",
                node,
                f"production code reads {node.value}, which pytest sets only while it runs tests",
            )
        elif self.data.refers(node.value):
            self.hit(
                "PG561",
                node,
                f"production code refers to {node.value!r}, a path of the fixture plane's "
                "locked evidence: the code under test must not read the expected answers",
            )

    # assignments ---------------------------------------------------------------------
    def _targets(self, targets: Iterable[ast.expr], node: ast.stmt) -> None:
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)) and self._is_builtins(
                target.value
            ):
                self.hit("PG556", node, _builtins_message(ast.unparse(target)))
            elif isinstance(target, ast.Name) and target.id == "pytest_plugins" and not self.depth:
                self.hit(
                    "PG557",
                    node,
                    "production code sets pytest_plugins: it asks pytest to load plugins the "
                    "gate did not allow",
                )
            elif (
                isinstance(target, ast.Name)
                and target.id in ("__eq__", "__ne__")
                and isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Lambda)
            ):
                self._equality(target.id, [node.value.body], node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._targets(node.targets, node)
        self._class_field(node.targets[0] if len(node.targets) == 1 else None, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._targets([node.target], node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._targets([node.target], node)
        self._class_field(node.target, node)

    def _class_field(self, target: ast.expr | None, node: ast.Assign | ast.AnnAssign) -> None:
        """Fields of a class body (annotated, or `attr.ib()`), compared unless marked so."""
        plain = isinstance(node, ast.Assign) and not isinstance(node.value, ast.Call)
        if not self.classes or self.depth or not isinstance(target, ast.Name) or plain:
            self.generic_visit(node)
            return
        self.field = f"{'.'.join(self.classes)}.{target.id}"
        if isinstance(node, ast.AnnAssign) or _is_field_call(node.value, self.aliases):
            self.fields.setdefault(self.field, True)
        self.generic_visit(node)
        self.field = None

    def _is_builtins(self, node: ast.AST) -> bool:
        name = dotted(node, self.aliases)
        return name in ("builtins", "__builtins__", "builtins.__dict__")

    # classes and equality ------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in ("__eq__", "__ne__") and self.classes:
            returns = [r.value for r in _own_returns(node) if r.value is not None]
            if len(returns) == len(list(_own_returns(node))):
                self._equality(node.name, returns, node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def _equality(self, name: str, returns: list[ast.expr], node: ast.AST) -> None:
        constant = name == "__eq__"
        if returns and all(
            isinstance(value, ast.Constant) and value.value is constant for value in returns
        ):
            owner = ".".join(self.classes) or "<module>"
            self.hit(
                "PG559",
                node,
                f"{owner}.{name} returns {constant} for anything: every comparison with it "
                f"{'passes' if constant else 'fails to differ'}, so tests that compare results "
                "prove nothing",
                f"{owner}.{name}",
            )


def _is_field_call(node: ast.expr | None, aliases: dict[str, str]) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func, aliases) in FIELD_CALLS


def _own_returns(node: ast.AST) -> Iterator[ast.Return]:
    """Return statements of a function, not of functions or classes nested in it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _own_returns(child)


def _import_message(module: str) -> str:
    return (
        f"production code imports {module}: code under test must not reach the test harness "
        "(it can skip, exit or rewrite the run from there)"
    )


def _modules_message(module: str) -> str:
    return f"production code looks {module!r} up in sys.modules: it can tell it runs under tests"


def _builtins_message(target: str) -> str:
    return f"production code writes to builtins ({target}): it changes names every module sees"


# packaging: pytest11 entry points ---------------------------------------------------------


def _entry_point_hits(name: str, text: str | None) -> list[Hit]:
    if text is None:
        return []
    points = pytest11(name, text)
    lines = text.splitlines()
    hits = []
    for point, target in sorted(points.items()):
        line = next((i for i, row in enumerate(lines, 1) if point in row and "=" in row), 1)
        hits.append(
            Hit(
                "PG558",
                line,
                f"{point} = {target}",
                f"a pytest11 entry point {point} = {target} loads a pytest plugin from the "
                "patch wherever the package is installed",
            )
        )
    return hits
