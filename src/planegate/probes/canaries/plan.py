"""The sampled canaries' vocabulary and their plan: which of main's tests are sampled and
which functions of the files the patch changed may be broken (`run.py` judges what the
head's run said, `child/sampled.py` breaks in the child).

`defs` lists a module's top-level and class-level functions by qualified name, as the child's
code objects name them (`Class.method`, nested classes included): a function of a file the
patch changed may be broken only when every `def` of its name reads the same on both sides.
The break is the same in the child and in a repro: every call raises an ordinary exception.
"""

from __future__ import annotations

import ast
import os
import random
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

from planegate import sourcesize
from planegate.config.planemap import file_of
from planegate.probes.answers.wire import ProbeFailure
from planegate.probes.canaries.wire import SampleSpec
from planegate.probes.protocol import ProbeContext, changed_code, scoring_files

EXCEPTION = "RuntimeError"
SAMPLED = "sampled canaries"  # the report's record of them
LIED = "sampled canary"  # PG125: passed with its function broken, fails so on main
UNTESTED = "sampled canary (main's test)"  # PG126: passes so on main too
UNCLOSED = "sampled canary run"  # PG127: the run sent no record of its sample
KINDS = (LIED, UNTESTED, UNCLOSED)

FACTOR = 2  # tests sampled per break: a sampled test may fail or call nothing to break


@dataclass(frozen=True)
class Plan:
    """The sample asked of the head's run (None when nothing is sampled, `why` says why)."""

    spec: SampleSpec | None = None
    why: str = ""


def plan(ctx: ProbeContext, assigned: frozenset[str] | None = None) -> Plan:
    """A random few of main's scoring tests (within `assigned` in a shard) and what may be
    broken for them."""
    if ctx.cfg.sampled_canaries <= 0:
        return Plan(why="off (pytest.sampled_canaries: 0)")
    rng = random.Random(os.urandom(16))
    tests = candidates(ctx, rng, ctx.cfg.sampled_canaries * FACTOR, assigned)
    if not tests:
        return Plan(why="no scoring test of main's to sample")
    spec = SampleSpec(
        tests,
        ctx.cfg.sampled_canaries,
        rng.getrandbits(63),
        f"state not ready ({secrets.token_hex(3)})",
        ctx.evidence.test_side,
        ctx.evidence.roots,
        left_as_on_main(ctx),
    )
    return Plan(spec)


def left_as_on_main(ctx: ProbeContext) -> dict[str, tuple[str, ...]]:
    """For each Python file the patch changes: the qualified names whose every `def` reads the
    same on both sides (an honest patch that rewrites a function is not taken for a lying run;
    a file main lacks has none)."""
    kept: dict[str, tuple[str, ...]] = {}
    for path in changed_code(ctx):
        if not path.endswith(".py"):
            continue
        before = defs(ctx.base.text(path) or "")
        after = defs(ctx.head.text(path) or "")
        kept[path] = tuple(
            sorted(
                name
                for name, nodes in before.items()
                if [ast.dump(n) for n in nodes] == [ast.dump(n) for n in after.get(name, [])]
            )
        )
    return kept


def candidates(
    ctx: ProbeContext, rng: random.Random, count: int, assigned: frozenset[str] | None = None
) -> tuple[str, ...]:
    """`count` test functions of main's scoring files (`path::name`, `path::Class::name`),
    read from main's source: files in random order, one test each, then round again. In a
    shard, only tests of its slice."""
    keys = None if assigned is None else {n.split("[", 1)[0] for n in assigned}
    files = list(scoring_files(ctx))
    if keys is not None:
        wanted = {file_of(key) for key in keys}
        files = [path for path in files if path in wanted]
    rng.shuffle(files)
    per_file: list[list[str]] = []
    for path in files:
        if len(per_file) >= count:
            break
        names = _test_functions(ctx.base.text(path) or "")
        found = [f"{path}::{name}" for name in names if f"{path}::{name}" not in ctx.frozen]
        found = [key for key in found if keys is None or key in keys]
        if found:
            rng.shuffle(found)
            per_file.append(found)
    picked: list[str] = []
    for depth in range(count):
        picked += [names[depth] for names in per_file if depth < len(names)]
        if len(picked) >= count or all(depth >= len(names) for names in per_file):
            break
    return tuple(picked[:count])


def _test_functions(source: str) -> list[str]:
    module = sourcesize.parse(source)
    if module is None:
        return []
    found = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [node.name] if node.name.startswith("test") else []
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test")
            ]
    return found


def defs(source: str) -> dict[str, list[ast.FunctionDef]]:
    """qualified name -> every top-level or class-level `def` of that name (async ones too,
    as a FunctionDef-like node, so a name defined twice is seen as ambiguous)."""
    module = sourcesize.parse(source)
    found: dict[str, list[ast.FunctionDef]] = {}
    if module is not None:
        for qualname, node in _walk(module.body, ""):
            found.setdefault(qualname, []).append(node)
    return found


def _walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.FunctionDef]]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield from _walk(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node  # type: ignore[misc]


def described(failure: ProbeFailure) -> tuple[str, str, int]:
    """(function, path, line) a sampled canary's message starts with: `name (path:line): `."""
    head = failure.message.split("): ", 1)[0]
    name, _, place = head.partition(" (")
    path, _, line = place.rpartition(":")
    return name, path, int(line) if line.isdigit() else 0
