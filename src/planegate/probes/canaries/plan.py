"""The sampled canaries' vocabulary and their plan: which of main's tests are sampled, from
every kind of test main has (`run.py` judges what the head's run said, `child/sampled.py`
breaks in the child, `child/breaks.py` says how). Any production function a sampled test
calls directly may be broken, whether or not the patch changed it: the patched version must
fail main's test just as main's would.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

from planegate.collectable import KINDS_OF_TESTS
from planegate.config.planemap import file_of
from planegate.probes.answers.wire import ProbeFailure
from planegate.probes.canaries.wire import SampleSpec
from planegate.probes.protocol import ProbeContext, scoring_files

SAMPLED = "sampled canaries"  # the report's record of them
LIED = "sampled canary"  # PG125: passed with its function broken, fails so on main
UNTESTED = "sampled canary (main's test)"  # PG126: passes so on main too
UNCLOSED = "sampled canary run"  # PG127: the run sent no record of its sample
STARVED = "sampled canary (nothing to break)"  # PG140: main's code has something to break
STARVED_ON_MAIN = "sampled canary (nothing to break on main)"  # PG141: neither has main's
KINDS = (LIED, UNTESTED, UNCLOSED, STARVED, STARVED_ON_MAIN)

FACTOR = 2  # tests sampled per break: a sampled test may fail or call nothing to break


@dataclass(frozen=True)
class Plan:
    """The sample asked of the head's run (None when nothing is sampled, `why` says why);
    `early`: what starts main's confirmation while that run goes on (early.py's `Early`)."""

    spec: SampleSpec | None = None
    why: str = ""
    early: object = field(default=None, compare=False)


def plan(ctx: ProbeContext, assigned: frozenset[str] | None = None) -> Plan:
    """A random few of main's scoring tests (within `assigned`: the nodeids main's run
    collected, where known) and what may be broken for them."""
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
        "",  # no message: a break returns a wrong value, or raises as the function would
        ctx.evidence.test_side,
        ctx.evidence.roots,
        {},  # every function may be broken, the ones the patch changed too
    )
    return Plan(spec)


def candidates(
    ctx: ProbeContext, rng: random.Random, count: int, assigned: frozenset[str] | None = None
) -> tuple[str, ...]:
    """`count` tests of main's scoring files (`path::name`, `path::Class::name`), read from
    main's source, from every kind there is (plain functions, parametrized, Hypothesis,
    `Test*` classes, `unittest.TestCase` subclasses): kinds taken in turn, files in random
    order. Within `assigned` when it is known (a shard's slice, or main's whole inventory from
    its digest): a test of the source that pytest never collects is not chosen."""
    keys = None if assigned is None else {n.split("[", 1)[0] for n in assigned}
    files = list(scoring_files(ctx))
    if keys is not None:
        wanted = {file_of(key) for key in keys}
        files = [path for path in files if path in wanted]
    rng.shuffle(files)
    by_kind: dict[str, list[str]] = {}
    read = 0
    for path in files:
        if read >= max(count * 4, 16) and len(by_kind) >= len(KINDS_OF_TESTS):
            break
        found = [
            (f"{path}::{name}", kind)
            for name, kind in ctx.test_functions(path)
            if f"{path}::{name}" not in ctx.frozen and (keys is None or f"{path}::{name}" in keys)
        ]
        read += bool(found)
        for key, kind in found:
            by_kind.setdefault(kind, []).append(key)
    pools = [by_kind[kind] for kind in sorted(by_kind)]
    rng.shuffle(pools)
    for pool in pools:
        rng.shuffle(pool)
    picked: list[str] = []
    for depth in range(max((len(pool) for pool in pools), default=0)):
        picked += [pool[depth] for pool in pools if depth < len(pool)]
        if len(picked) >= count:
            break
    return tuple(picked[:count])


def described(failure: ProbeFailure) -> tuple[str, str, int]:
    """(function, path, line) a sampled canary's message starts with: `name (path:line): `."""
    head = failure.message.split("): ", 1)[0]
    name, _, place = head.partition(" (")
    path, _, line = place.rpartition(":")
    return name, path, int(line) if line.isdigit() else 0
