"""Skip and xfail marks: in decorators, `pytestmark`, and the names they go by."""

from __future__ import annotations

import ast

from planegate.analysis.hunks.facts import Skip
from planegate.analysis.hunks.keys import key
from planegate.analysis.hunks.parsed_module import Module

SKIP_MARKS = frozenset({"skip", "skipif", "xfail"})
UNITTEST_SKIPS = frozenset({"skip", "skipIf", "skipUnless", "expectedFailure"})
SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail", "pytest.importorskip"})


def skip_mark(
    module: Module, node: ast.expr, local: dict[str, ast.expr] | None = None
) -> str | None:
    """`pytest.mark.xfail`, `unittest.skip`, … when `node` is (or names) a skip/xfail mark."""
    node = module.resolve(node, local)
    if isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            found = skip_mark(module, element, local)
            if found:
                return found
        return None
    if isinstance(node, ast.Constant) and node.value in SKIP_MARKS:
        return f"pytest.mark.{node.value}"
    target = node.func if isinstance(node, ast.Call) else node
    name = module.dotted(target)
    if name is None:
        return None
    parts = name.split(".")
    if parts[-1] in SKIP_MARKS and len(parts) >= 2 and parts[-2] == "mark":
        return f"pytest.mark.{parts[-1]}"
    if parts[-1] in UNITTEST_SKIPS and name.startswith("unittest."):
        return f"unittest.{parts[-1]}"
    return None


def skip_key(module: Module, node: ast.expr, what: str) -> str:
    """A skip's identity without its reason text, so rewording a reason is not a new skip."""
    node = module.resolve(node)
    if what.startswith("unittest.") and isinstance(node, ast.Call):
        args = node.args[1:] if what in ("unittest.skipIf", "unittest.skipUnless") else []
        return what + "".join(key(arg) for arg in args)
    return what + key(node, skip_keywords=frozenset({"reason"}))


def pytestmark_skips(module: Module, stmt: ast.stmt) -> list[Skip]:
    if not isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign) or stmt.value is None:
        return []
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
        return []
    value = module.resolve(stmt.value)
    elements = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    out: list[Skip] = []
    for element in elements:
        mark = skip_mark(module, element)
        if mark:
            what = f"pytestmark = {mark}"
            out.append(Skip(what, stmt.lineno, "pytestmark" + skip_key(module, element, mark)))
    return out
