"""What one function asserts, skips, tolerates and generates: the facts the rules compare.

The records are named tuples rather than frozen dataclasses: several are built for every
assertion of every changed function, and a tuple is the cheapest immutable record to build.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from planegate.analysis.hunks.parsed_module import short


class Param(NamedTuple):
    name: str
    value: float
    higher_is_looser: bool = True


class Assertion(NamedTuple):
    kind: str
    line: int
    dead: str | None
    key: str
    operands: tuple[str, ...]
    node: ast.AST  # shown only in messages

    @property
    def text(self) -> str:
        return short(self.node)


class Skip(NamedTuple):
    what: str
    line: int
    key: str


class Raises(NamedTuple):
    kind: str
    line: int
    exceptions: tuple[str, ...]
    exception: ast.expr | None  # shown only in messages
    match: str | None

    @property
    def exceptions_text(self) -> str:
        return short(self.exception) if self.exception is not None else "(none)"


class Tolerance(NamedTuple):
    kind: str
    line: int
    params: tuple[Param, ...]
    explicit: frozenset[str]
    align: str
    subject: str | None


class Literal(NamedTuple):
    align: str
    values: tuple[str, ...]
    line: int


class Weak(NamedTuple):
    """A check on `subject` weaker than equality; `kind` is `truth` (`assert x`,
    `assertTrue`, `hasattr`, `callable`), `none` (`is None`, `is not None`, `assertIsNone`,
    `assertIsNotNone`) or `type` (`isinstance`, `assertIsInstance`)."""

    subject: str
    line: int
    node: ast.AST  # shown only in messages
    kind: str = "truth"

    @property
    def text(self) -> str:
        return short(self.node)


class Projection(NamedTuple):
    """An equality made on a part of `subjects[0]`'s value (`len(x)`, `x.keys()`,
    `sorted(x)`, `set(x)`, `x[k]`, `x.attr`); `subjects` runs from the value compared down
    to the innermost one (`len(r.items)`: `r.items`, then `r`)."""

    subjects: tuple[str, ...]
    how: str
    line: int
    node: ast.AST  # shown only in messages

    @property
    def text(self) -> str:
        return short(self.node)


class Vacuous(NamedTuple):
    key: str
    line: int
    text: str
    why: str


class Params(NamedTuple):
    """`cases` holds each case's key and node (shown only when the case is lost); None when
    the values are not a literal list."""

    argnames: str
    line: int
    cases: tuple[tuple[str, ast.expr], ...] | None
    whole: str


class Example(NamedTuple):
    key: str
    text: str
    line: int


NO_SETTINGS: Mapping[str, ast.expr] = MappingProxyType({})


class Facts(NamedTuple):
    """What the rules compare for one function (or class)."""

    line: int = 0
    assertions: tuple[Assertion, ...] = ()
    skips: tuple[Skip, ...] = ()
    raises: tuple[Raises, ...] = ()
    tolerances: tuple[Tolerance, ...] = ()
    literals: tuple[Literal, ...] = ()
    weak: tuple[Weak, ...] = ()
    projections: tuple[Projection, ...] = ()
    vacuous: tuple[Vacuous, ...] = ()
    value_checked: frozenset[str] = frozenset()
    exact_checked: frozenset[str] = frozenset()
    params: tuple[Params, ...] = ()
    given: tuple[tuple[str, ast.expr], ...] = ()
    draws: tuple[ast.expr, ...] = ()
    settings: Mapping[str, ast.expr] = NO_SETTINGS
    has_settings: bool = False
    examples: tuple[Example, ...] = ()
    seeds: tuple[str, ...] = ()
    assumes: tuple[int, ...] = ()
    filters: tuple[int, ...] = ()
    patches: tuple[str, ...] = ()
    autouse: bool = False
    invariant: bool = False

    @property
    def live(self) -> tuple[Assertion, ...]:
        return tuple(a for a in self.assertions if a.dead is None)

    @property
    def dead(self) -> tuple[Assertion, ...]:
        return tuple(a for a in self.assertions if a.dead is not None)


EMPTY = Facts()
