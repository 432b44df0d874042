"""Functions and classes of a Python source found by where they are: the chain of names
around the function defined at a line, a definition's dumped syntax tree found by that
chain, and a top-level definition with every top-level statement it uses (so a definition is
compared between two versions of a file whatever lines moved)."""

from __future__ import annotations

import ast

from planegate import sourcesize

Defs = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def def_chain(source: str | None, line: int) -> tuple[str, ...] | None:
    """The names of the functions and classes around the function defined at `line` (its
    `def`, or its first decorator: a code object's first line), itself last."""
    module = sourcesize.parse(source) if source is not None else None
    return None if module is None else _chain_at(module, line, ())


def _chain_at(node: ast.AST, line: int, outer: tuple[str, ...]) -> tuple[str, ...] | None:
    for child in ast.iter_child_nodes(node):
        chain = (*outer, child.name) if isinstance(child, Defs) else outer
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            first = child.decorator_list[0].lineno if child.decorator_list else child.lineno
            if line in (first, child.lineno):
                return chain
        found = _chain_at(child, line, chain)
        if found is not None:
            return found
    return None


def def_source(source: str | None, chain: tuple[str, ...]) -> str | None:
    """The dumped syntax tree of the function or class the names lead to (the last of a name,
    as Python binds it), or None."""
    node: ast.AST | None = sourcesize.parse(source) if source is not None else None
    for name in chain:
        if node is None:
            return None
        node = next((d for d in reversed(_defs_in(node)) if d.name == name), None)
    return None if node is None or not chain else ast.dump(node)


def _defs_in(node: ast.AST) -> list[Defs]:
    """The functions and classes a node's body defines, in compound statements too."""
    found: list[Defs] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, Defs):
            found.append(child)
        elif isinstance(child, ast.stmt):
            found += _defs_in(child)
    return found


def with_what_it_uses(source: str | None, name: str) -> str | None:
    """The dumped syntax trees of the module's top-level statements that bind `name`, and,
    in turn, of those binding every name they read (the functions a class's methods call,
    the tables and imports they read), in the module's order; None when nothing binds it."""
    module = sourcesize.parse(source) if source is not None else None
    if module is None:
        return None
    binders: dict[str, list[int]] = {}
    for index, statement in enumerate(module.body):
        for bound in _bound(statement):
            binders.setdefault(bound, []).append(index)
    wanted, todo = set(), [name]
    while todo:
        for index in binders.get(todo.pop(), ()):
            if index not in wanted:
                wanted.add(index)
                todo += _read(module.body[index])
    return "\n".join(ast.dump(module.body[i]) for i in sorted(wanted)) if wanted else None


def _bound(statement: ast.stmt) -> set[str]:
    """The names a top-level statement binds, in its compound statements' bodies too."""
    if isinstance(statement, Defs):
        return {statement.name}
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    found = {
        node.id
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, ast.stmt):
            found |= _bound(child)
    return found


def _read(statement: ast.stmt) -> set[str]:
    return {
        node.id
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
