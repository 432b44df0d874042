"""How a sampled canary breaks a function: like an ordinary bug, not with a fixed message.

The function's `__code__` is swapped for one that calls a copy of the original and bends what
it returns: a value of the same built-in type that differs (an int off by one, a float off by
more than any tolerance, a string or a sequence one item longer, a flipped bool; each call off
by its own amount), or, for any other result (None, an object of the project's), the
exception the function itself names (an exception class its code reads), else `ValueError`,
with the call's first argument as its message. An exception the original raises is swallowed
(`None` is returned): a test that expects it fails as well. Nothing of the break reads like a
canary: no fixed text, the function's own name, file and first line, and the raise happens in
the function's own frame.
"""

from __future__ import annotations

import ast
import builtins
from types import CodeType, FunctionType
from typing import Any

CALL, BEND = "\0sampled call\0", "\0sampled bend\0"  # constants of the template's code
_INF = float("inf")


TEMPLATE = """
def template(*args, **kwargs):
    call = "\\0sampled call\\0"
    bend = "\\0sampled bend\\0"
    try:
        value = call(*args, **kwargs)
    except Exception:
        return None
    done, value = bend(value, args)
    if done:
        return value
    raise value
"""


def _template_code() -> CodeType:
    """The template's code with every line of its body on the line after the `def`: once
    renumbered, a traceback through the break points at the function's own first line."""
    module = ast.parse(TEMPLATE)
    function = module.body[0]
    for node in ast.walk(function):
        if isinstance(node, (ast.stmt, ast.expr, ast.excepthandler, ast.arg)):
            node.lineno, node.end_lineno = 2, 2
    function.lineno = function.end_lineno = 1
    code = compile(module, "<sampled>", "exec")
    return next(c for c in code.co_consts if type(c) is CodeType)


_TEMPLATE = _template_code()  # compiled when the child imports this module, before the tree


def broken(function: FunctionType) -> CodeType:
    """The code that makes `function` return wrong values (see the module's docstring), named,
    placed and numbered as its own."""
    code = function.__code__
    original = FunctionType(code, function.__globals__, code.co_name, function.__defaults__)
    original.__kwdefaults__ = function.__kwdefaults__
    bend = bender(_error_of(function), code.co_varnames[:1] == ("self",))
    template = _TEMPLATE
    replace = {CALL: original, BEND: bend}
    consts = tuple(replace.get(c, c) if type(c) is str else c for c in template.co_consts)
    changes: dict[str, Any] = {
        "co_consts": consts,
        "co_name": code.co_name,
        "co_filename": code.co_filename,
        "co_firstlineno": code.co_firstlineno,
    }
    if hasattr(code, "co_qualname"):
        changes["co_qualname"] = code.co_qualname
    return template.replace(**changes)


def _error_of(function: FunctionType) -> type[Exception]:
    """An exception class the function's own code names (its module's, or a builtin), else
    ValueError. Only dictionaries are read."""
    space = function.__globals__
    names = vars(builtins)
    for name in function.__code__.co_names:
        value = space.get(name, names.get(name)) if type(space) is dict else names.get(name)
        if type(value) is type and issubclass(value, Exception) and value is not Exception:
            return value
    return ValueError


def bender(error: type[Exception], method: bool) -> Any:
    calls = [0]

    def bend(value: Any, args: tuple[Any, ...]) -> tuple[bool, Any]:
        calls[0] += 1
        bent = wrong(value, calls[0])
        if bent is not None:
            return True, bent[0]
        shown = args[1:2] if method else args[:1]
        try:
            return False, error(*shown)
        except Exception:
            return False, ValueError(*shown)

    return bend


def wrong(value: Any, call: int = 1) -> tuple[Any] | None:
    """A value of `value`'s own built-in type that differs from it; None for other types. The
    `call`-th call of a broken function is off by its own amount, so two calls never agree by
    the break alone (`add(a, b) == add(b, a)` fails as well)."""
    bend = _BENDS.get(type(value))
    return None if bend is None else (bend(value, call),)


def _float(value: float, call: int) -> float:
    if value != value or value in (_INF, -_INF):
        return float(call)
    return value + (abs(value) + 1.0) * call  # off by more than any tolerance


def _mapping(value: dict[Any, Any], call: int) -> dict[Any, Any]:
    bent = dict(value)
    bent[None] = call if bent.get(None) != call else -call
    return bent


def _items(value: set[Any] | frozenset[Any], call: int) -> set[Any] | frozenset[Any]:
    return type(value)(set(value) ^ {call})


_BENDS: dict[type, Any] = {
    bool: lambda value, _call: not value,
    int: lambda value, call: value + call,
    float: _float,
    complex: lambda value, call: value + call,
    str: lambda value, call: value + (value[-1:] or "0") * call,
    bytes: lambda value, call: value + (value[-1:] or b"0") * call,
    list: lambda value, call: value + [None] * call,
    tuple: lambda value, call: value + (None,) * call,
    dict: _mapping,
    set: _items,
    frozenset: _items,
}
