"""Sampled canaries: main's own scoring tests, run again inside the head's scoring run with a
production function they call broken on purpose. Each must fail; one that passes means the run
lied, or the test does not depend on that function, and the base says which (docs/runner.md,
"Sampled canaries").

1. Before the head's run: twice `pytest.sampled_canaries` of main's scoring tests, chosen with a
   seed from `os.urandom`, and the functions of the files the patch changed that it left as
   main has them (`plan.py`).
2. In the head's run, with the same harness, channel and canaries as every test: each of those
   tests that passes is traced, and up to `pytest.sampled_canaries` of them run once more with
   a function they called directly broken (`child/sampled.py`). No session of its own.
3. A test that did not fail with its function broken runs on the base's tree with the same
   function broken (one small session, only then, started once the child's `settled` record
   says its breaks are done while the run goes on (`Early`), else as soon as the head's run
   is over, and running beside the other probes: `begin`): failing there, or not calling that
   function there, the patch's run lied (PG125); passing there too, main's test does not
   depend on it (PG126, a warning). A run that sent no record of its sample is PG127.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from planegate.probes.answers.wire import AnswerProbes, ProbeFailure, joined
from planegate.probes.canaries.child.sampled import MAX_CALLS
from planegate.probes.canaries.early import Early, confirmation
from planegate.probes.canaries.plan import (
    LIED,
    SAMPLED,
    STARVED,
    STARVED_ON_MAIN,
    UNCLOSED,
    UNTESTED,
    Plan,
)
from planegate.probes.canaries.wire import Sampled, SampleSpec, child_plugins, sampled_of
from planegate.probes.protocol import Found, HeadRun, ProbeContext
from planegate.report import ProbeRecord
from planegate.runner.beside import Beside, closed_on_error
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions, pytest_args


def begin(head: HeadRun) -> Confirming:
    """The head's run's sample judged as far as that run tells, at once; main's confirmation,
    when one is needed, started in a thread (or taken from `Early`, which started it while the
    run went on): it runs beside the probes after this one (registry.run_all), and
    `after_head` takes its result."""
    planned = head.planned.get(SAMPLED)
    plan = planned.plan if planned is not None else None
    if not isinstance(plan, Plan):
        plan = Plan(why="not planned")
    early: Early[Confirming] | None = plan.early if isinstance(plan.early, Early) else None
    try:
        return check(head.ctx, head.result, plan, head.checkout, early)
    finally:
        if early is not None:
            early.close()  # what it started and `check` did not take


def after_head(found: Found, confirming: Confirming) -> Found:
    """The sample judged, joined to what the probes found."""
    return replace(found, answers=joined(found.answers, confirming.result()))


@dataclass(frozen=True)
class Target:
    """A sampled test and the function broken for it (its first line on the head's tree)."""

    nodeid: str
    path: str
    qualname: str
    line: int


Judge = Callable[[RunResult, float], AnswerProbes]


class Confirming:
    """What the head's run said of its sample, judged; when main must confirm it, the session
    on the base's tree runs beside the caller (`start`) and `result()` judges once it is over."""

    def __init__(self, done: AnswerProbes | None = None) -> None:
        self._done = done
        self._session: Beside[tuple[RunResult, float]] | None = None
        self._judge: Judge | None = None

    def start(self, ctx: ProbeContext, confirm: SampleSpec, nice: int = 0) -> Confirming:
        """The session on the base's tree, started (`judged_by` says how its result is read);
        `nice`: it runs beside the head's run, and yields the CPU to it (main's code runs)."""
        started = time.monotonic()
        folders = contextlib.ExitStack()
        with closed_on_error(folders):
            sessions = _base_sessions(
                ctx, folders.enter_context(ctx.repo.worktree(ctx.base.commit))
            )

        def work() -> tuple[RunResult, float]:
            return _on_base(ctx, sessions, confirm, nice), time.monotonic() - started

        self._session = Beside(folders, work, "canaries-on-main")
        return self

    def judged_by(self, judge: Judge) -> Confirming:
        self._judge = judge
        return self

    def result(self) -> AnswerProbes:
        if self._done is None and self._session is not None and self._judge is not None:
            self._done = self._judge(*self._session.result())
        return self._done or AnswerProbes()

    def close(self) -> None:
        """Wait for the session on the base, if any, and remove its tree."""
        if self._session is not None:
            self._session.close()


def check(
    ctx: ProbeContext,
    head: RunResult,
    planned: Plan,
    checkout: str,
    early: Early[Confirming] | None = None,
) -> Confirming:
    """What the head's run said of its sample, judged; main's confirmation started when the
    run's sample needs one (what it cost goes into the record), or taken from `early`."""
    spec = planned.spec
    if spec is None:
        return Confirming(_record("not run", 0.0, 0, planned.why))
    if not head.closed or head.canary_problem:
        why = "the head's run did not hold: its own finding stands"
        return Confirming(_record("not run", 0.0, 0, why))
    reported = sampled_of(head.extra)
    if reported is None:
        failure = ProbeFailure(
            UNCLOSED,
            spec.tests[0],
            "the sampled canaries (the run): it closed without their record",
            f"{checkout}, then run the gate again",
        )
        found = _record("fail", 0.0, len(spec.tests), "no record of the sample came")
        return Confirming(replace(found, failures=(failure,)))
    targets = tuple(
        Target(s.nodeid, s.path, s.qualname, s.line)
        for s in reported.values()
        if s.path and head.outcome_of(s.nodeid).passed
    )
    if not targets:
        return starved(ctx, spec, head, reported, checkout)
    survivors = tuple(t for t in targets if not reported[t.nodeid].failed)
    detail = "; ".join(f"{t.nodeid} -> {t.qualname} ({t.path}:{t.line})" for t in targets)
    detail += f" ({len(reported)} sampled in the head's run)"

    if not survivors:
        return Confirming(_record("pass", 0.0, len(targets), detail))

    def judged(on_main: RunResult, seconds: float) -> AnswerProbes:
        failures = verdicts(ctx, survivors, checkout, on_main)
        outcome = "fail" if any(f.probe != UNTESTED for f in failures) else "pass"
        return replace(_record(outcome, seconds, len(targets), detail), failures=failures)

    force = {t.nodeid: (t.path, t.qualname) for t in survivors}
    taken = early.take(force) if early is not None else None
    if taken is not None:
        detail += " (main's confirmation began during that run)"
    confirming = taken or Confirming().start(ctx, confirmation(spec, force))
    return confirming.judged_by(judged)


def starved(
    ctx: ProbeContext,
    spec: SampleSpec,
    head: RunResult,
    reported: dict[str, Sampled],
    checkout: str,
) -> Confirming:
    """Nothing was broken though sampled tests passed: the same tests on the base, free to
    break what they call there. The base breaks one: the patch left main's tests nothing to
    break (PG140, an error); it breaks none either: main's tests give the sample nothing
    (PG141, a warning for the plane's owner). No test passed: nothing to say."""
    passed = tuple(n for n in reported if head.outcome_of(n).passed)
    why = f"none of the {len(reported)} sampled tests that ran called a function to break"
    if not passed:
        return Confirming(_record("not run", 0.0, 0, why))

    def judged(on_main: RunResult, seconds: float) -> AnswerProbes:
        held = on_main.closed and not on_main.canary_problem
        there = sampled_of(on_main.extra) if held else None
        broken = [e for e in (there or {}).values() if e.path]
        if there is not None and not broken:
            what = "no function main's test calls directly can be broken, on main's code too"
            failure = _failure(Target(passed[0], "", "", 0), STARVED_ON_MAIN, what, ctx, checkout)
            return replace(_record("pass", seconds, 0, why), failures=(failure,))
        if broken:
            first = broken[0]
            what = (
                "the patch leaves nothing of main's sampled tests to break: on main's code "
                f"{first.qualname} ({first.path}:{first.line}) is broken for {first.nodeid}"
            )
        else:
            what = "nothing could be broken, and main's run of the same tests did not hold"
        failure = _failure(Target(passed[0], "", "", 0), STARVED, what, ctx, checkout)
        return replace(_record("fail", seconds, 0, why), failures=(failure,))

    confirm = replace(spec, tests=passed, breaks=len(passed), force={})
    return Confirming().start(ctx, confirm).judged_by(judged)


def _record(outcome: str, seconds: float, tests: int, detail: str) -> AnswerProbes:
    return AnswerProbes(records=(ProbeRecord(SAMPLED, outcome, round(seconds, 3), tests, detail),))


def verdicts(
    ctx: ProbeContext, survivors: tuple[Target, ...], checkout: str, on_main: RunResult | None
) -> tuple[ProbeFailure, ...]:
    """Each test that did not fail with its function broken, judged by the same break on the
    base (`on_main`, the session `check` started): failing there, or not calling the function
    there, is a lie (PG125); passing there too, a test that does not depend on it (PG126).
    `{f}` stands for the function's place."""
    held = on_main is not None and on_main.closed and not on_main.canary_problem
    there = sampled_of(on_main.extra) if on_main is not None and held else None
    found = []
    for target in survivors:

        def failure(kind: str, what: str, target: Target = target) -> ProbeFailure:
            return _failure(target, kind, what, ctx, checkout)

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


def _base_sessions(ctx: ProbeContext, tree: Path) -> Sessions:
    trusted = frozenset(ctx.protection.select(ctx.base.files))
    return Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)


def _on_base(ctx: ProbeContext, sessions: Sessions, confirm: SampleSpec, nice: int) -> RunResult:
    """The sampled tests on the base's tree, each run as usual and again with a function broken
    there (the one the head's run broke, when `force` names it)."""
    timeout = min(ctx.cfg.pytest_timeout, ctx.cfg.probe_budget)
    return sessions.run(
        targets=confirm.tests,
        deselect=frozenset(ctx.frozen),
        timeout=timeout,
        child_plugins=child_plugins(confirm),
        nice=nice,
    )


def _failure(
    target: Target, kind: str, what: str, ctx: ProbeContext, checkout: str
) -> ProbeFailure:
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [*pytest_args(ctx.cfg), target.nodeid]
    if not target.path:
        return ProbeFailure(kind, target.nodeid, what, f"{checkout}, then run the gate again")
    repro = (
        f"{checkout}, make {target.qualname} ({target.path}:{target.line}) return a wrong "
        "value of its own type (an int one more, a string one character longer, a list one "
        "item shorter; otherwise raise the exception it raises elsewhere), "
        f"then {shlex.join(args)}"
    )
    where = f"{target.qualname} ({target.path}:{target.line})"
    return ProbeFailure(kind, target.nodeid, f"{where}: {what.format(f=where)}", repro)
