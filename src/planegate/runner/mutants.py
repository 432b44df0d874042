"""Production functions broken on purpose, for the sampled canaries (pure: source in, source
out; `gate/canary_sample.py` writes the files and runs the tests).

A target is chosen on main's source: a plain function or method, a `def` (not `async`, not a
generator) at a module's top level or in a class body (nested classes included), defined once
there and found by its qualified name. Special methods are left out, `__init__` and
`__call__` aside: a broken `__repr__` or `__getattr__` changes how the harness sees objects,
not what the test checks. The break replaces the function's whole body (its docstring
included) with one `raise` of an ordinary exception; every other line keeps its number, so
tracebacks and the rest of the file read as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from planegate import sourcesize
from planegate.runner.answer_probes import ProbeFailure

EXCEPTION = "RuntimeError"
SAMPLED = "sampled canaries"  # the report's record of them
LIED = "sampled canary"  # PG125: passed with its function broken, fails so on main
UNTESTED = "sampled canary (main's test)"  # PG126: passes so on main too
UNCLOSED = "sampled canary run"  # PG127: the run with the functions broken did not hold
KINDS = (LIED, UNTESTED, UNCLOSED)
KEPT_DUNDERS = frozenset({"__init__", "__call__"})


def defs(source: str) -> dict[str, list[ast.FunctionDef]]:
    """qualified name -> every top-level or class-level `def` of that name (async ones too,
    as a FunctionDef-like node, so a name defined twice is seen as ambiguous)."""
    module = sourcesize.parse(source)
    found: dict[str, list[ast.FunctionDef]] = {}
    if module is not None:
        for qualname, node in _walk(module.body, ""):
            found.setdefault(qualname, []).append(node)
    return found


def _walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.FunctionDef]]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield from _walk(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node  # type: ignore[misc]


def first_line(node: ast.FunctionDef) -> int:
    """The line a code object names as its first: the first decorator's, else the def's."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def function_at(source: str, line: int, name: str) -> str | None:
    """The qualified name of the breakable function `name` whose code starts at `line`."""
    for qualname, nodes in defs(source).items():
        if qualname.rsplit(".", 1)[-1] != name:
            continue
        if any(first_line(n) == line for n in nodes) and breakable(nodes):
            return qualname
    return None


def line_of(source: str, qualname: str) -> int | None:
    """The `def` line of the (last) definition of that qualified name in `source`."""
    nodes = defs(source).get(qualname)
    return nodes[-1].lineno if nodes else None


def breakable(nodes: list[ast.FunctionDef]) -> bool:
    if len(nodes) != 1 or not isinstance(nodes[0], ast.FunctionDef):
        return False
    node = nodes[0]
    dunder = node.name.startswith("__") and node.name.endswith("__")
    if dunder and node.name not in KEPT_DUNDERS:
        return False
    return not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(node.body))


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function's body, nested functions, lambdas and classes left out."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
            ):
                todo.append(child)


def broken(source: str, qualnames: Iterable[str], message: str) -> str | None:
    """`source` with the body of every `def` of each named function replaced by
    `raise RuntimeError(message)`, line numbers kept; None when a name has no `def` there.

    Every definition of the name is broken, whatever its kind: a patch cannot keep its
    function out of reach by defining it twice or making it a generator."""
    found = defs(source)
    nodes: list[ast.FunctionDef] = []
    for qualname in sorted(set(qualnames)):
        if not found.get(qualname):
            return None
        nodes += found[qualname]
    lines = source.encode("utf-8").splitlines(keepends=True)
    statement = f"raise {EXCEPTION}({message!r})".encode()
    for node in sorted(nodes, key=lambda n: n.lineno, reverse=True):
        first, last = node.body[0], node.body[-1]
        start, end = first.lineno - 1, (last.end_lineno or last.lineno) - 1
        head = lines[start][: first.col_offset]
        tail = lines[end][last.end_col_offset or 0 :]
        if not tail.strip():
            tail = b"\n"
        blank = [b"\n"] * (end - start)
        lines[start : end + 1] = [head + statement + tail, *blank]
    return b"".join(lines).decode("utf-8")


def described(failure: ProbeFailure) -> tuple[str, str, int]:
    """(function, path, line) a sampled canary's message starts with: `name (path:line): `."""
    head = failure.message.split("): ", 1)[0]
    name, _, place = head.partition(" (")
    path, _, line = place.rpartition(":")
    return name, path, int(line) if line.isdigit() else 0
