"""The facts of one test function or class: its decorators, then its body."""

from __future__ import annotations

import ast

from planegate.analysis.hunks.decorators import read_decorators
from planegate.analysis.hunks.facts import Facts
from planegate.analysis.hunks.marks import pytestmark_skips
from planegate.analysis.hunks.parsed_module import FuncNode, Module
from planegate.analysis.hunks.walker import Walker


def function_facts(module: Module, func: FuncNode, *, literals: bool = True) -> Facts:
    """`literals` collects the expected-value data PG507 needs (fixture-plane files only)."""
    walker = Walker(module, func)
    walker.want_literals = literals
    decorated = read_decorators(module, func.decorator_list, walker)
    walker.block(func.body, None)
    return Facts(
        line=func.lineno,
        assertions=tuple(walker.assertions),
        skips=tuple(decorated.skips) + tuple(walker.skips),
        raises=tuple(walker.raises),
        tolerances=tuple(walker.tolerances),
        literals=tuple(walker.literals),
        weak=tuple(walker.weak),
        projections=tuple(walker.projections),
        vacuous=tuple(walker.vacuous),
        value_checked=frozenset(walker.value_checked),
        exact_checked=frozenset(walker.exact_checked),
        params=tuple(decorated.params),
        given=tuple(decorated.given),
        draws=tuple(walker.draws),
        settings=decorated.settings,
        has_settings=decorated.has_settings,
        examples=tuple(decorated.examples),
        seeds=tuple(decorated.seeds),
        assumes=tuple(walker.assumes),
        filters=tuple(walker.filters),
        patches=tuple(walker.patches),
        autouse=decorated.autouse,
        invariant=decorated.invariant,
    )


def class_facts(module: Module, node: ast.ClassDef) -> Facts:
    decorated = read_decorators(module, node.decorator_list, None)
    skips = list(decorated.skips)
    for stmt in node.body:
        skips.extend(pytestmark_skips(module, stmt))
    return Facts(line=node.lineno, skips=tuple(skips), params=tuple(decorated.params))
