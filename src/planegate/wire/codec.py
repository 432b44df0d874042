"""One codec for frozen dataclasses as JSON values: `encode` is `dataclasses.asdict` (tuples
become lists), `decode` walks the class's type hints, so a fact added to a record is written
and read back with no further edit.

Decoding is strict: a string is a JSON string, an int a JSON integer, a float any number, a
bool a JSON boolean; a tuple is a list (of the tuple's length, for a fixed one); a mapping is
an object. Every field's key must be there, except those the caller names as `optional` (an
absent key, or null for a field that is not itself optional, reads as the field's default):
an older or truncated file never drops a fact silently. `hooks` decode a type their own way.
Raises TypeError or KeyError, naming the path of the value that does not fit.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, Union

T = TypeVar("T")
Hooks = Mapping[Any, Callable[[Any], Any]]
Optional = Mapping[Any, frozenset[str]]


def encode(record: Any) -> Any:
    """A dataclass as a JSON value (fields in their declared order)."""
    return dataclasses.asdict(record)


def decode(
    kind: type[T], value: Any, *, hooks: Hooks | None = None, optional: Optional | None = None
) -> T:
    """`value` as a `kind`; see the module's docstring for what fits."""
    try:
        result: T = _Compiler(hooks or {}, optional or {}).of(kind)(value)
    except _Misfit as misfit:
        raise misfit.error() from None
    return result


Decode = Callable[[Any], Any]


class _Misfit(Exception):
    """A value that does not fit, and the path to it (built only on the way out)."""

    def __init__(self, kind: type[Exception], what: str, path: str = "") -> None:
        super().__init__(what)
        self.kind, self.what, self.path = kind, what, path

    def under(self, step: str) -> _Misfit:
        return _Misfit(self.kind, self.what, step + self.path)

    def error(self) -> Exception:
        where = self.path.lstrip(".") or "the file"
        return self.kind(where if self.kind is KeyError else f"{where}: {self.what}")


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


class _Compiler:
    """One decoding function per type, made once per `decode` call."""

    def __init__(self, hooks: Hooks, optional: Optional) -> None:
        self.hooks, self.optional = hooks, optional
        self.made: dict[Any, Decode] = {}

    def of(self, tp: Any) -> Decode:
        if tp not in self.made:
            self.made[tp] = lambda value: self.made[tp](value)  # a recursive type's own
            self.made[tp] = self.make(tp)
        return self.made[tp]

    def make(self, tp: Any) -> Decode:
        if tp in self.hooks:
            return _hooked(self.hooks[tp])
        if tp is Any:
            return lambda value: value
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self.record(tp)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (Union, types.UnionType):
            (inner,) = [arg for arg in args if arg is not type(None)]
            return _nullable_of(self.of(inner))
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return _sequence(self.of(args[0]))
        if origin is tuple:
            return _fixed(tuple(self.of(arg) for arg in args))
        if origin is list:
            items = _sequence(self.of(args[0]))
            return lambda value: list(items(value))
        if origin in (dict, Mapping):
            return _mapping(self.of(args[1]))
        return _scalar(tp)

    def record(self, kind: type) -> Decode:
        hints = _hints(kind)
        optional = self.optional.get(kind, frozenset())
        plan = [
            (f.name, self.of(hints[f.name]), f.name in optional, _nullable(hints[f.name]))
            for f in dataclasses.fields(kind)
        ]

        def decode_record(value: Any) -> Any:
            if not isinstance(value, dict):
                raise _Misfit(TypeError, "expected an object")
            found: dict[str, Any] = {}
            for name, decode_field, may_lack, nullable in plan:
                if name not in value:
                    if may_lack:
                        continue
                    raise _Misfit(KeyError, name, "." + name)
                item = value[name]
                if item is None and may_lack and not nullable:
                    continue
                try:
                    found[name] = decode_field(item)
                except _Misfit as misfit:
                    raise misfit.under("." + name) from None
            return kind(**found)

        return decode_record


def _hooked(hook: Callable[[Any], Any]) -> Decode:
    def decode_hooked(value: Any) -> Any:
        try:
            return hook(value)
        except (KeyError, TypeError, ValueError) as error:
            raise _Misfit(type(error), str(error)) from None

    return decode_hooked


def _nullable_of(inner: Decode) -> Decode:
    return lambda value: None if value is None else inner(value)


def _sequence(item: Decode) -> Decode:
    def decode_sequence(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Misfit(TypeError, "expected a list")
        try:
            return tuple(map(item, value))
        except _Misfit as misfit:
            index = next(i for i, one in enumerate(value) if not _fits(item, one))
            raise misfit.under(f"[{index}]") from None

    return decode_sequence


def _fits(decode_one: Decode, value: Any) -> bool:
    try:
        decode_one(value)
    except _Misfit:
        return False
    return True


def _fixed(items: tuple[Decode, ...]) -> Decode:
    def decode_fixed(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise _Misfit(TypeError, f"expected a list of {len(items)}")
        found = []
        for index, (decode_one, one) in enumerate(zip(items, value, strict=True)):
            try:
                found.append(decode_one(one))
            except _Misfit as misfit:
                raise misfit.under(f"[{index}]") from None
        return tuple(found)

    return decode_fixed


def _mapping(item: Decode) -> Decode:
    def decode_mapping(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _Misfit(TypeError, "expected an object")
        found = {}
        for key, one in value.items():
            try:
                found[key] = item(one)
            except _Misfit as misfit:
                raise misfit.under(f"[{key!r}]") from None
        return found

    return decode_mapping


def _nullable(tp: Any) -> bool:
    return typing.get_origin(tp) in (Union, types.UnionType) and type(None) in typing.get_args(tp)


def _scalar(tp: Any) -> Decode:
    if tp is float:
        return _float
    if tp not in (str, int, bool):
        raise TypeError(f"no decoder for {tp!r}")

    def decode_scalar(value: Any) -> Any:
        if type(value) is not tp:
            raise _Misfit(TypeError, f"expected {tp.__name__}")
        return value

    return decode_scalar


def _float(value: Any) -> float:
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)  # an integer where a float is due
    raise _Misfit(TypeError, "expected a number")
