"""Whether a value compared in an assert answers honestly (child side, pure of pytest).

Two ways a value lies without failing the assert:

- **equal to anything**: it equals a fresh `object()`, a fresh instance of a class of this
  module no code has seen, or, compared with a builtin scalar, both that scalar and another
  of its type (`unittest.mock.ANY`, an `__eq__` returning True, `other is other`, an `__eq__`
  that says yes to every int). Checked on the values the test did not make itself, and on the
  elements of the builtin containers holding them.
- **a bent builtin**: one side a builtin value, the other a class of the patch's files whose
  comparison answers otherwise than the builtin it stands in for (a `str` subclass equal
  case-blind, an `int` with a tolerant `__le__`): `strict_compare.Checker` says so.

Every check runs the value's own comparison methods: one that raises, or returns something
that is not a truth value (an array), is taken as honest.
"""

from __future__ import annotations

import math
from typing import Any

FAST = frozenset({int, str, float, bool, bytes, complex, type(None)})
SCALARS = (int, float, str, bytes)
SEQUENCES = (list, tuple)
COLLECTIONS = (list, tuple, set, frozenset)
MAX_DEPTH = 4
MAX_ITEMS = 2_000
ANYTHING = "equals anything"
BENT = "bends a builtin comparison"


class _Stranger:
    """A class no code but this module has seen: nothing honest is equal to its instances."""

    __slots__ = ()


def all_plain(operands: tuple[Any, ...]) -> bool:
    """Every operand a builtin scalar: nothing to check (the common case, kept cheap)."""
    return FAST.issuperset(map(type, operands))


def anything(value: Any, other: Any) -> str | None:
    """How `value` (not a builtin scalar) equals what nothing honest equals; None if it does
    not. `other` is what the assert compares it with."""
    try:
        if value == object():
            return "it equals a fresh object()"
        if value == _Stranger():
            return "it equals an instance of a class no code has seen"
        if type(other) in SCALARS and value == other:
            alternative = _another(other)
            if alternative is not None and value == alternative:
                return f"it equals both {_short(other)} and {_short(alternative)}"
    except Exception:
        return None
    return None


def _another(value: Any) -> Any:
    """A value of the same builtin type as `value` that differs from it."""
    kind = type(value)
    if kind is int:
        return value + 7919
    if kind is float:
        other = value * 2.0 + 1.0 if math.isfinite(value) else None
        return other if other is not None and other != value else None
    if kind is str:
        return value + "\u2063~"
    if kind is bytes:
        return value + b"\x00~"
    return None


def leaves(value: Any, other: Any) -> list[tuple[Any, Any]]:
    """The values whose honesty decides the comparison, each with its counterpart: the value
    itself when it is an object, else the objects held by the builtin containers, namedtuples,
    dataclasses and attrs classes it is made of (matched with the other side's parts when both
    have the same shape)."""
    found: list[tuple[Any, Any]] = []
    _walk(value, other, 0, found)
    return found


def _walk(value: Any, other: Any, depth: int, found: list[tuple[Any, Any]]) -> None:
    kind = type(value)
    how = _how(kind) if depth < MAX_DEPTH else None
    if how is None:
        found.append((value, other))
        return
    if how is not _ITEMS and how is not _KEYED:
        found.append((value, other))  # a record type: its own equality, then its fields
    parts = _parts(value, how)
    if not parts:
        return
    if isinstance(parts, dict):
        for key, item in parts.items():
            if type(item) not in FAST and len(found) < MAX_ITEMS:
                counterpart = other.get(key) if type(other) is dict else None
                _walk(item, counterpart, depth + 1, found)
        return
    theirs: list[Any] | None = None  # the other side's parts, matched when first needed
    for index, item in enumerate(parts):
        if type(item) in FAST or len(found) >= MAX_ITEMS:
            continue
        if theirs is None:
            matched = _parts(other, how) if type(other) is kind else None
            paired = isinstance(matched, list) and len(matched) == len(parts)
            theirs = matched if paired and isinstance(matched, list) else []
        _walk(item, theirs[index] if theirs else None, depth + 1, found)


_ITEMS: tuple[str, ...] = ("items",)
_KEYED: tuple[str, ...] = ("keyed",)
_HOW: dict[int, tuple[type, tuple[str, ...] | None]] = {}


def _how(kind: type) -> tuple[str, ...] | None:
    """How a type's values are made of parts (cached per type): `_ITEMS`, `_KEYED`, the names
    of its compared fields, or None for a value compared whole."""
    cached = _HOW.get(id(kind))
    if cached is not None and cached[0] is kind:
        return cached[1]
    how: tuple[str, ...] | None = None
    if kind in COLLECTIONS or (issubclass(kind, tuple) and kind.__eq__ is tuple.__eq__):
        how = _ITEMS  # builtin containers, namedtuples
    elif kind is dict:
        how = _KEYED
    else:
        fields = getattr(kind, "__dataclass_fields__", None)
        attrs = getattr(kind, "__attrs_attrs__", None)
        if isinstance(fields, dict):
            how = tuple(n for n, f in fields.items() if getattr(f, "compare", False))
        elif isinstance(attrs, tuple):
            how = tuple(a.name for a in attrs if getattr(a, "eq", False))
    _HOW[id(kind)] = (kind, how)
    return how


def _parts(value: Any, how: tuple[str, ...]) -> list[Any] | dict[Any, Any] | None:
    """What a composite value compares by: elements, values by key, or compared fields."""
    try:
        if how is _ITEMS:
            return list(value)[:MAX_ITEMS]
        if how is _KEYED:
            return value  # type: ignore[no-any-return]
        return [object.__getattribute__(value, name) for name in how]
    except Exception:
        return None


def members(container: Any) -> tuple[Any, ...]:
    """The elements `x in container` compares `x` with, for a builtin sequence (a set or a
    dict finds its member by hash first: a lying member there must also collide)."""
    if type(container) in SEQUENCES:
        return tuple(container[:MAX_ITEMS])
    return ()


def contains_anything(container: Any) -> str | None:
    """A container (not a builtin one) whose `in` says yes to anything."""
    if type(container) in FAST or type(container) in COLLECTIONS or type(container) is dict:
        return None
    try:
        if object() in container or _Stranger() in container:
            return "it holds a fresh object()"
    except Exception:
        return None
    return None


PLAIN: dict[type, Any] = {int: 0, float: 0.0, str: "", bytes: b"", tuple: (), list: []}


def plain(value: Any) -> Any:
    """A builtin subclass's value as its plain builtin (None for anything else): the
    builtin's own `+` of its empty value, so no method of the subclass runs."""
    kind = type(value)
    if kind in PLAIN or kind is bool:
        return None
    for base, empty in PLAIN.items():
        if isinstance(value, base):
            add: Any = getattr(base, "__add__")  # noqa: B009 (the class's own method, not the value's)
            return add(value, empty)
    return None


def type_name(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def is_approx(value: Any) -> bool:
    """`pytest.approx(...)`: an expectation the test states, equal to what is near it."""
    kind = type(value)
    return kind.__module__ in ("_pytest.approx", "_pytest.python_api") and hasattr(
        value, "expected"
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
