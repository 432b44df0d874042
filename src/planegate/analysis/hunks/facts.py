"""What one function asserts, skips, tolerates and generates: the facts the rules compare."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from planegate.analysis.hunks.model import short


@dataclass(frozen=True)
class Param:
    name: str
    value: float
    higher_is_looser: bool = True


@dataclass(frozen=True)
class Assertion:
    kind: str
    line: int
    dead: str | None
    key: str
    operands: tuple[str, ...]
    node: ast.AST = field(compare=False, repr=False)

    @property
    def text(self) -> str:
        return short(self.node)


@dataclass(frozen=True)
class Skip:
    what: str
    line: int
    key: str


@dataclass(frozen=True)
class Raises:
    kind: str
    line: int
    exceptions: tuple[str, ...]
    exceptions_text: str
    match: str | None


@dataclass(frozen=True)
class Tolerance:
    kind: str
    line: int
    params: tuple[Param, ...]
    explicit: frozenset[str]
    align: str
    subject: str | None


@dataclass(frozen=True)
class Literal:
    align: str
    values: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Weak:
    """A check on `subject` weaker than equality; `kind` is `truth` (`assert x`,
    `assertTrue`, `hasattr`, `callable`), `none` (`is None`, `is not None`, `assertIsNone`,
    `assertIsNotNone`) or `type` (`isinstance`, `assertIsInstance`)."""

    subject: str
    line: int
    node: ast.AST = field(compare=False, repr=False)
    kind: str = "truth"

    @property
    def text(self) -> str:
        return short(self.node)


@dataclass(frozen=True)
class Projection:
    """An equality made on a part of `subjects[0]`'s value (`len(x)`, `x.keys()`,
    `sorted(x)`, `set(x)`, `x[k]`, `x.attr`); `subjects` runs from the value compared down
    to the innermost one (`len(r.items)`: `r.items`, then `r`)."""

    subjects: tuple[str, ...]
    how: str
    line: int
    node: ast.AST = field(compare=False, repr=False)

    @property
    def text(self) -> str:
        return short(self.node)


@dataclass(frozen=True)
class Vacuous:
    key: str
    line: int
    text: str
    why: str


@dataclass(frozen=True)
class Params:
    argnames: str
    line: int
    cases: tuple[tuple[str, str], ...] | None
    whole: str


@dataclass(frozen=True)
class Example:
    key: str
    text: str
    line: int


@dataclass(frozen=True)
class Facts:
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
    settings: dict[str, ast.expr] = field(default_factory=dict)
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
