"""Tolerance calls (`pytest.approx`, `math.isclose`, numpy's, unittest's): their parameters."""

from __future__ import annotations

import ast
from collections.abc import Callable

from planegate.analysis.hunks.facts import Param, Tolerance
from planegate.analysis.hunks.parsed_module import number

TOLERANCE_KEYWORDS = frozenset(
    {"rel", "abs", "rel_tol", "abs_tol", "rtol", "atol", "places", "delta", "decimal"}
)

# Tolerance parameters: (name, positional index or None, default, higher is looser).
TOLERANCES: dict[str, tuple[tuple[str, int | None, float, bool], ...]] = {
    "pytest.approx": (("rel", 1, 1e-6, True), ("abs", 2, 1e-12, True)),
    "math.isclose": (("rel_tol", None, 1e-9, True), ("abs_tol", None, 0.0, True)),
    "numpy.isclose": (("rtol", 2, 1e-5, True), ("atol", 3, 1e-8, True)),
    "numpy.allclose": (("rtol", 2, 1e-5, True), ("atol", 3, 1e-8, True)),
    "numpy.testing.assert_allclose": (("rtol", 2, 1e-7, True), ("atol", 3, 0.0, True)),
    "numpy.testing.assert_almost_equal": (("decimal", 2, 7.0, False),),
    "numpy.testing.assert_array_almost_equal": (("decimal", 2, 6.0, False),),
    "assertAlmostEqual": (("places", 2, 7.0, False), ("delta", None, 0.0, True)),
}


def tolerance(
    call: ast.Call, kind: str, keyer: Callable[[ast.AST], str], subject: str | None
) -> Tolerance:
    """The parameters of a `kind` call, each default filled in; `subject` is what it compares."""
    params: list[Param] = []
    explicit: set[str] = set()
    subject_args = 1 if kind == "pytest.approx" else 2
    for name, index, default, looser in TOLERANCES[kind]:
        node: ast.expr | None = None
        if index is not None and len(call.args) > index:
            node = call.args[index]
        for keyword in call.keywords:
            if keyword.arg == name:
                node = keyword.value
        value = _number_or(node, default)
        if value is None:
            continue
        if node is not None:
            explicit.add(name)
        params.append(Param(name, value, looser))
    align = kind + "".join(keyer(arg) for arg in call.args[:subject_args])
    if subject is None and kind != "pytest.approx" and call.args:
        subject = keyer(call.args[0])
    return Tolerance(kind, call.lineno, tuple(params), frozenset(explicit), align, subject)


def _number_or(node: ast.expr | None, default: float) -> float | None:
    if node is None:
        return default
    if isinstance(node, ast.Constant) and node.value is None:
        return default
    return number(node)
