"""Which class decides a comparison in an assert, and whether it bent the answer.

`Checker.compare(ops, *operands)` runs inside the test (probe_strict splits each comparison
assert into a call of it and the assert itself). One side a builtin value (str, bytes, int,
float, bool, tuple, list, dict, set), the other side's class overriding the comparison in a
suspect file (the patch's code) and answering differently from the builtin it stands in for:
the assert fails with "comparison delegated to <module>.<Class>.<method> (<file>:<line>)".
A class that does not override the comparison, or whose override returns NotImplemented or
the builtin's own answer, passes. Builtin containers on both sides are compared element by
element the same way; a `pytest.approx` operand is checked against the other side's numbers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

BUILTINS: tuple[type, ...] = (str, bytes, int, float, bool, tuple, list, dict, set)
SEQUENCES = (list, tuple)
REFLECTED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
METHOD = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", ">": "__gt__", "<=": "__le__"}
METHOD[">="] = "__ge__"
APPROX_METHODS = (
    "__eq__",
    "__ne__",
    "__sub__",
    "__rsub__",
    "__abs__",
    "__float__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
)
MAX_DEPTH = 4
MAX_PAIRS = 10_000


class Checker:
    """`root`: the rootdir; `suspects`: files (relative to it) whose classes are checked;
    empty: every file under the root that is not in a site-packages folder."""

    def __init__(self, root: str, suspects: tuple[str, ...] = ()) -> None:
        self.root = os.path.realpath(root)
        self.suspects = frozenset(suspects)
        self._known: dict[str, str | None] = {}  # a file -> its path under the root, once

    def compare(self, ops: str, *operands: Any) -> None:
        for op, left, right in zip(ops.split(","), operands, operands[1:], strict=False):
            problem = self.problem(op, left, right)
            if problem is not None:
                raise AssertionError(problem)

    def problem(self, op: str, left: Any, right: Any) -> str | None:
        budget = [MAX_PAIRS]
        for pair_op, a, b in _pairs(op, left, right, 0, budget):
            found = self._pair(pair_op, a, b)
            if found is not None:
                return found
        return None

    def _pair(self, op: str, left: Any, right: Any) -> str | None:
        for actual, approx in ((left, right), (right, left)):
            if _is_approx(approx):
                return self._approx(actual)
        if type(right) in BUILTINS:
            return self._delegated(op, left, right)
        if type(left) in BUILTINS:
            return self._delegated(REFLECTED[op], right, left)
        return None

    def _delegated(self, op: str, value: Any, builtin: Any) -> str | None:
        """`value op builtin`, `value` not a builtin: does its class bend the answer?"""
        if type(value) in BUILTINS or value is None:
            return None
        name = METHOD[op]
        owner, method = _defining(type(value), name)
        invert = False
        if owner is None and op == "!=":
            owner, method = _defining(type(value), "__eq__")
            invert = True
        if owner is None or not self._suspect(owner, method):
            return None
        answer = method(value, builtin)
        if answer is NotImplemented:
            return None
        if invert:
            answer = not answer
        honest = _builtin_answer(op, value, builtin)
        if honest is not None and bool(answer) == honest:
            return None
        return _message(owner, "__eq__" if invert else name, self._where(owner, method))

    def _approx(self, actual: Any) -> str | None:
        for value in _leaves(actual, 0):
            if type(value) in BUILTINS or value is None:
                continue
            for name in APPROX_METHODS:
                owner, method = _defining(type(value), name)
                if owner is not None and self._suspect(owner, method):
                    return _message(owner, name, self._where(owner, method))
        return None

    def _suspect(self, owner: type, method: Any) -> bool:
        path = self._relative(_code_file(method)) or self._relative(_module_file(owner))
        return path is not None and (not self.suspects or path in self.suspects)

    def _relative(self, path: str | None) -> str | None:
        if not path:
            return None
        if path in self._known:
            return self._known[path]
        found = self._resolve(path)
        self._known[path] = found
        return found

    def _resolve(self, path: str) -> str | None:
        real = os.path.realpath(path)
        if not real.startswith(self.root + os.sep) or "site-packages" in real.split(os.sep):
            return None
        return os.path.relpath(real, self.root).replace(os.sep, "/")

    def _where(self, owner: type, method: Any) -> str:
        code = getattr(getattr(method, "__func__", method), "__code__", None)
        path = self._relative(_code_file(method))
        if code is not None and path is not None:
            return f"{path}:{code.co_firstlineno}"
        return self._relative(_module_file(owner)) or owner.__module__


def _pairs(
    op: str, left: Any, right: Any, depth: int, budget: list[int]
) -> Iterator[tuple[str, Any, Any]]:
    """The pair itself, then matching elements of builtin containers on both sides (compared
    with `==`: that is how a container compares its elements)."""
    budget[0] -= 1
    yield op, left, right
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return
    if type(left) in SEQUENCES and type(right) in SEQUENCES and len(left) == len(right):
        for a, b in zip(left, right, strict=True):
            yield from _pairs("==", a, b, depth + 1, budget)
    elif type(left) is dict and type(right) is dict:
        for key in left.keys() & right.keys():
            yield from _pairs("==", left[key], right[key], depth + 1, budget)


def _leaves(value: Any, depth: int) -> Iterator[Any]:
    if depth < MAX_DEPTH and type(value) in SEQUENCES:
        for item in value:
            yield from _leaves(item, depth + 1)
    elif depth < MAX_DEPTH and type(value) is dict:
        for item in value.values():
            yield from _leaves(item, depth + 1)
    else:
        yield value


def _is_approx(value: Any) -> bool:
    kind = type(value)
    return kind.__module__ in ("_pytest.approx", "_pytest.python_api") and hasattr(
        value, "expected"
    )


def _defining(kind: type, name: str) -> tuple[type | None, Any]:
    """The class of `kind`'s MRO that defines `name`, unless it is a builtin or object."""
    for klass in kind.__mro__:
        if name in vars(klass):
            if klass in BUILTINS or klass is object:
                return None, None
            return klass, vars(klass)[name]
    return None, None


def _builtin_answer(op: str, value: Any, builtin: Any) -> bool | None:
    """What `value op builtin` gives without the override: the builtin base's own method
    for a subclass of a builtin, identity for other objects; None when it would raise."""
    base = next((k for k in type(value).__mro__ if k in BUILTINS), None)
    if base is not None:
        answer = getattr(base, METHOD[op])(value, builtin)
        if answer is NotImplemented:
            answer = getattr(type(builtin), METHOD[REFLECTED[op]])(builtin, value)
        if answer is not NotImplemented:
            return bool(answer)
    if op == "==":
        return value is builtin
    if op == "!=":
        return value is not builtin
    return None


def _code_file(method: Any) -> str | None:
    target = getattr(method, "__func__", method)
    code = getattr(target, "__code__", None)
    return None if code is None else str(code.co_filename)


def _module_file(owner: type) -> str | None:
    module = sys.modules.get(owner.__module__)
    found = getattr(module, "__file__", None)
    return found if isinstance(found, str) else None


def _message(owner: type, name: str, where: str) -> str:
    return f"comparison delegated to {owner.__module__}.{owner.__qualname__}.{name} ({where})"
