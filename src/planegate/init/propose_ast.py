"""Which collected tests use Hypothesis `@given`, read from the AST of the file they live in.

A nodeid names a function by its place in the file: `path::test_x[1]` is `test_x`,
`path::TestC::test_x` is the method `test_x` of class `TestC`. The given-ness of each
function comes from `planemap.test_kinds`, the reading the gate's mixed-file check uses, so
the proposal and the gate agree on what a property test is.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from planegate import syntax
from planegate.config.planemap import test_kinds


def split_nodeid(nodeid: str) -> tuple[str, str]:
    """(file, qualified function name without parameters): `a.py::C::t[1]` -> (a.py, C::t)."""
    base = nodeid.split("[", 1)[0]
    path, _, qualname = base.partition("::")
    return path, qualname


@dataclass(frozen=True)
class FunctionIndex:
    """Every function of a module and of its classes, by qualified name, with its @given use."""

    by_qualname: dict[str, bool] = field(default_factory=dict)
    by_name: dict[str, bool | None] = field(default_factory=dict)  # None: the file disagrees
    state_machines: frozenset[str] = frozenset()  # `TestM = Machine.TestCase` classes
    parsed: bool = True

    def uses_given(self, qualname: str) -> bool | None:
        """True/False when the source says; None when the function is not in the file."""
        if qualname in self.by_qualname:
            return self.by_qualname[qualname]
        if qualname.split("::", 1)[0] in self.state_machines:
            return True
        return self.by_name.get(qualname.rsplit("::", 1)[-1])


def index(source: str) -> FunctionIndex:
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return FunctionIndex(parsed=False)
    given = {(name, line): uses for name, line, uses in test_kinds(source)}
    by_qualname: dict[str, bool] = {}
    _walk(tree.body, "", given, by_qualname)
    by_name: dict[str, bool | None] = {}
    for qualname, uses in by_qualname.items():
        name = qualname.rsplit("::", 1)[-1]
        by_name[name] = uses if by_name.get(name, uses) == uses else None
    return FunctionIndex(by_qualname, by_name, frozenset(_state_machines(tree)))


def _walk(
    body: list[ast.stmt], prefix: str, given: dict[tuple[str, int], bool], out: dict[str, bool]
) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[prefix + node.name] = given.get((node.name, node.lineno), False)
        elif isinstance(node, ast.ClassDef):
            _walk(node.body, f"{prefix}{node.name}::", given, out)


def _state_machines(tree: ast.Module) -> list[str]:
    """Module-level `TestX = SomeMachine.TestCase`: Hypothesis stateful tests."""
    found = []
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "TestCase"
        ):
            found += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return found
