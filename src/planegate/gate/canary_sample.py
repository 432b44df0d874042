"""Sampled canaries: main's own scoring tests, run again inside the head's scoring run with a
production function they call broken on purpose. Each must fail; one that passes means the run
lied, or the test does not depend on that function, and the base says which (docs/runner.md,
"Sampled canaries").

1. Before the head's run: twice `pytest.sampled_canaries` of main's scoring tests, chosen with a
   seed from `os.urandom`, and the functions of the files the patch changed that it left as
   main has them (`plan`).
2. In the head's run, with the same harness, channel and canaries as every test: each of those
   tests that passes is traced, and up to `pytest.sampled_canaries` of them run once more with
   a function they called directly broken (`runner/sampled.py`). No session of its own.
3. A test that did not fail with its function broken runs on the base's tree with the same
   function broken (one small session, only then): failing there, or not calling that function
   there, the patch's run lied (PG125); passing there too, main's test does not depend on it
   (PG126, a warning). A run that sent no record of its sample is PG127.
"""

from __future__ import annotations

import ast
import os
import random
import secrets
import shlex
import time
from dataclasses import dataclass, replace

from planegate import sourcesize
from planegate.config.planemap import file_of
from planegate.gate import flipped
from planegate.gate.context import Context
from planegate.gate.flipped import scoring_files
from planegate.report import ProbeRecord
from planegate.runner import mutants
from planegate.runner.answer_probes import AnswerProbes, ProbeFailure
from planegate.runner.mutants import LIED, SAMPLED, UNCLOSED, UNTESTED
from planegate.runner.sampled import MAX_CALLS, SampleSpec, sampled_of
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions, pytest_args

FACTOR = 2  # tests sampled per break: a sampled test may fail or call nothing to break


@dataclass(frozen=True)
class Plan:
    """The sample asked of the head's run (None when nothing is sampled, `why` says why)."""

    spec: SampleSpec | None = None
    why: str = ""


@dataclass(frozen=True)
class Target:
    """A sampled test and the function broken for it (its first line on the head's tree)."""

    nodeid: str
    path: str
    qualname: str
    line: int


def plan(ctx: Context, assigned: frozenset[str] | None = None) -> Plan:
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


def left_as_on_main(ctx: Context) -> dict[str, tuple[str, ...]]:
    """For each Python file the patch changes: the qualified names whose every `def` reads the
    same on both sides (an honest patch that rewrites a function is not taken for a lying run;
    a file main lacks has none)."""
    kept: dict[str, tuple[str, ...]] = {}
    for path in flipped.changed_code(ctx):
        if not path.endswith(".py"):
            continue
        before = mutants.defs(ctx.base.text(path) or "")
        after = mutants.defs(ctx.head.text(path) or "")
        kept[path] = tuple(
            sorted(
                name
                for name, nodes in before.items()
                if [ast.dump(n) for n in nodes] == [ast.dump(n) for n in after.get(name, [])]
            )
        )
    return kept


def candidates(
    ctx: Context, rng: random.Random, count: int, assigned: frozenset[str] | None = None
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


def check(ctx: Context, head: RunResult, planned: Plan, checkout: str) -> AnswerProbes:
    """What the head's run said of its sample, judged; what the confirmation on main cost."""
    started = time.monotonic()
    spec = planned.spec
    if spec is None:
        return _record("not run", 0.0, 0, planned.why)
    if not head.closed or head.canary_problem:
        return _record("not run", 0.0, 0, "the head's run did not hold: its own finding stands")
    reported = sampled_of(head.extra)
    if reported is None:
        failure = ProbeFailure(
            UNCLOSED,
            spec.tests[0],
            "the sampled canaries (the run): it closed without their record",
            f"{checkout}, then run the gate again",
        )
        found = _record("fail", 0.0, len(spec.tests), "no record of the sample came")
        return replace(found, failures=(failure,))
    targets = tuple(
        Target(s.nodeid, s.path, s.qualname, s.line)
        for s in reported.values()
        if s.path and head.outcome_of(s.nodeid).passed
    )
    if not targets:
        why = f"none of the {len(reported)} sampled tests that ran called a function to break"
        return _record("not run", 0.0, 0, why)
    survivors = tuple(t for t in targets if not reported[t.nodeid].failed)
    failures = verdicts(ctx, spec, survivors, checkout) if survivors else ()
    detail = "; ".join(f"{t.nodeid} -> {t.qualname} ({t.path}:{t.line})" for t in targets)
    detail += f" ({len(reported)} sampled in the head's run)"
    outcome = "fail" if any(f.probe != UNTESTED for f in failures) else "pass"
    found = _record(outcome, time.monotonic() - started, len(targets), detail)
    return replace(found, failures=failures)


def _record(outcome: str, seconds: float, tests: int, detail: str) -> AnswerProbes:
    return AnswerProbes(records=(ProbeRecord(SAMPLED, outcome, round(seconds, 3), tests, detail),))


def verdicts(
    ctx: Context, spec: SampleSpec, survivors: tuple[Target, ...], checkout: str
) -> tuple[ProbeFailure, ...]:
    """Each test that did not fail with its function broken, judged by the same break on the
    base: failing there, or not calling the function there, is a lie (PG125); passing there
    too, a test that does not depend on it (PG126). `{f}` stands for the function's place."""
    on_main = _on_base(ctx, spec, survivors)
    held = on_main.closed and not on_main.canary_problem
    there = sampled_of(on_main.extra) if held else None
    found = []
    for target in survivors:

        def failure(kind: str, what: str, target: Target = target) -> ProbeFailure:
            return _failure(target, kind, what, spec.message, ctx, checkout)

        entry = None if there is None else there.get(target.nodeid)
        if entry is None or not entry.path:
            what = "passed with {f} broken; main's run with the same break did not hold"
            found.append(failure(LIED, what))
            continue
        calls = (target.path, target.qualname) in entry.calls or len(entry.calls) >= MAX_CALLS
        if not entry.failed and calls:
            what = "passed with {f} broken, on main's code too: main's test does not depend on it"
            found.append(failure(UNTESTED, what))
        elif not entry.failed:
            what = (
                "passed with {f} broken, which the run says it calls directly; on main the "
                "test does not call it: the run does not report what the test did, or the "
                "patch routes main's test to a function it does not depend on"
            )
            found.append(failure(LIED, what))
        else:
            what = (
                "reported passed with {f} broken, failed on main with the same break: the run "
                "does not report what the test did, or the patch no longer calls it where main does"
            )
            found.append(failure(LIED, what))
    return tuple(found)


def _on_base(ctx: Context, spec: SampleSpec, survivors: tuple[Target, ...]) -> RunResult:
    """The survivors on the base's tree, each run as usual and again with its function broken
    there as on the head."""
    force = {t.nodeid: (t.path, t.qualname) for t in survivors}
    nodeids = tuple(force)
    confirm = replace(spec, tests=nodeids, breaks=len(nodeids), only={}, force=force)
    with ctx.repo.worktree(ctx.base.commit) as tree:
        trusted = frozenset(ctx.protection.select(ctx.base.files))
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        timeout = min(ctx.cfg.pytest_timeout, ctx.cfg.probe_budget)
        return sessions.run(
            targets=nodeids, deselect=frozenset(ctx.frozen), timeout=timeout, sampled=confirm
        )


def _failure(
    target: Target, kind: str, what: str, message: str, ctx: Context, checkout: str
) -> ProbeFailure:
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [*pytest_args(ctx.cfg), target.nodeid]
    repro = (
        f"{checkout}, replace the body of {target.qualname} ({target.path}:{target.line}) "
        f"with `raise {mutants.EXCEPTION}({message!r})`, then {shlex.join(args)}"
    )
    where = f"{target.qualname} ({target.path}:{target.line})"
    return ProbeFailure(kind, target.nodeid, f"{where}: {what.format(f=where)}", repro)


def joined(answers: AnswerProbes, sampled: AnswerProbes) -> AnswerProbes:
    """The flipped tests' probes with the sampled canaries' failures, record and tampering."""
    return replace(
        answers,
        failures=(*answers.failures, *sampled.failures),
        records=(*answers.records, *sampled.records),
        tampering=(*answers.tampering, *sampled.tampering),
    )
