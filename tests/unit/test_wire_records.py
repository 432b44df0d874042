"""wire/codec.py: a frozen dataclass written as JSON and read back from its type hints."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from planegate.wire import codec


@dataclass(frozen=True)
class Inner:
    name: str
    seconds: float = 0.0


@dataclass(frozen=True)
class Outer:
    ids: tuple[str, ...]
    pairs: tuple[tuple[str, int], ...]
    by_name: Mapping[str, Inner]
    maybe: int | None
    flag: bool
    later: tuple[str, ...] = ()
    inner: Inner = field(default_factory=lambda: Inner("x"))


VALUE = Outer(("a", "b"), (("a", 1),), {"k": Inner("k", 1.5)}, None, True, ("z",))


def _written() -> dict[str, Any]:
    """VALUE as JSON gives it back (tuples are lists)."""
    written: dict[str, Any] = json.loads(json.dumps(codec.encode(VALUE)))
    return written


def test_a_record_reads_back_as_written() -> None:
    assert codec.decode(Outer, _written()) == VALUE


def test_an_integer_reads_as_a_float_where_one_is_due() -> None:
    written = _written()
    written["by_name"]["k"]["seconds"] = 2
    assert codec.decode(Outer, written).by_name["k"].seconds == 2.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ids": "ab"}, "ids: expected a list"),
        ({"ids": ["a", 1]}, "ids[1]: expected str"),
        ({"pairs": [["a"]]}, "pairs[0]: expected a list of 2"),
        ({"maybe": True}, "maybe: expected int"),
        ({"flag": 1}, "flag: expected bool"),
        (
            {"by_name": {"k": {"name": "k", "seconds": "1"}}},
            "by_name['k'].seconds: expected a number",
        ),
    ],
)
def test_a_value_that_does_not_fit_is_named_by_its_path(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=message.replace("[", r"\[")):
        codec.decode(Outer, {**_written(), **change})


def test_every_key_is_required_unless_named_optional() -> None:
    written = _written()
    del written["later"]
    with pytest.raises(KeyError, match="later"):
        codec.decode(Outer, written)
    optional = {Outer: frozenset({"later", "inner"})}
    read = codec.decode(Outer, {**written, "inner": None}, optional=optional)
    assert (read.later, read.inner) == ((), Inner("x"))


def test_a_hook_decodes_its_type() -> None:
    hooks = {Inner: lambda value: Inner(str(value).upper())}
    read = codec.decode(Outer, {**_written(), "by_name": {"k": "k"}}, hooks=hooks)
    assert read.by_name == {"k": Inner("K")}
