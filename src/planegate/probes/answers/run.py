"""Run the answer probes on the tests a patch flips, within a time budget, and say what
each probe found and what it cost (the sessions are planned in probes/answers/plan.py).

A flipped test a probe could not run before the budget ran out is `unprobed`: the gate fails
closed on it. A probe run that ended without its closing record (a crash, a hang up to
`pytest.timeout`) is a failure of that probe for every test it left unfinished. A probe run
is contained and watched like the scoring run: what its audit hook, integrity checks and
stream saw is kept (`tampering`) and judged like the scoring run's (PG107).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from planegate.analysis.hunks import is_test_file
from planegate.config import defaults
from planegate.config.planemap import file_of
from planegate.probes.answers import observed
from planegate.probes.answers import plan as plan_of
from planegate.probes.answers.plan import Plan, ProbeSession
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure, joined
from planegate.probes.protocol import Found, HeadRun, ProbeContext, changed_code
from planegate.report import ProbeRecord
from planegate.runner.session import ChildPlugin, Outcome, RunResult, Tamper
from planegate.runner.spec import pytest_args

# runs one session with a timeout (seconds): the gate's Sessions, in the head's tree
Runner = Callable[[ProbeSession, float], RunResult]
MAX_MESSAGE = 600
# the probes' pytest plugins, loaded in this order in each of their sessions
CHILD_MODULES = (
    "planegate.probes.answers.child.probe_fresh",
    "planegate.probes.answers.child.probe_plain",
    "planegate.probes.answers.child.probe_repeat",
    "planegate.probes.answers.child.probe_strict",
)
CHILD_PLUGINS = tuple(ChildPlugin(module) for module in CHILD_MODULES)


def after_head(head: HeadRun, found: Found) -> Found:
    """Probe every test the patch flips (the base's run found them: `head.base`) within the
    budget; the repro commands start with `head.checkout`."""
    record = head.base.record
    if not head.result.closed or head.result.canary_problem:
        return replace(found, answers=joined(found.answers, AnswerProbes(records=(record,))))
    ctx = head.ctx
    plan = plan_for(ctx, head.result, head.base.flipped)
    args = pytest_args(ctx.cfg)

    observe = observed.child_plugin(ctx, head.base.flipped)
    calls: list[observed.Call] = []

    def run_one(session: ProbeSession, timeout: float) -> RunResult:
        watched = plan_of.PLAIN in session.kinds  # the first run of every flipped test
        result = head.sessions.run(
            targets=session.targets,
            extra_args=(*args, *session.args),
            timeout=timeout,
            child_plugins=(*CHILD_PLUGINS, observe) if watched else CHILD_PLUGINS,
        )
        if watched and result.closed:
            calls.extend(observed.calls_of(result.extra))
        return result

    def repro(session: ProbeSession, nodeid: str) -> str:
        return plan_of.repro(session, nodeid, head.checkout, args)

    probed = run(plan, run_one, ctx.cfg.probe_budget, repro, max_timeout=ctx.cfg.pytest_timeout)
    special = observed.failures(ctx, calls, head.checkout, args)
    probed = replace(probed, failures=(*probed.failures, *special))
    record = replace(record, detail=f"{head.base.why}; {len(plan.flipped)} flipped")
    probed = replace(probed, records=(record, *probed.records))
    return replace(found, answers=joined(found.answers, probed))


def plan_for(ctx: ProbeContext, head: RunResult, tests: tuple[str, ...]) -> Plan:
    """The probes' plan for the flipped `tests`: their files' nodeids as the head's run
    selected them, the production files the patch changed, a seed of the tree that ran."""
    files = {file_of(n) for n in tests}
    modules = {
        path: tuple(n for n in head.selected if file_of(n) == path) for path in sorted(files)
    }
    suspects = tuple(p for p in changed_code(ctx) if p.endswith(".py") and not is_test_file(p))
    seed = zlib.crc32(ctx.head.commit.encode()) or 1
    return Plan(
        flipped=tests,
        given=frozenset(n for n in tests if n in head.examples),
        modules=modules,
        suspects=suspects,
        seed=seed if seed != ctx.cfg.seed else seed + 1,
        factor=defaults.PROBE_EXAMPLES_FACTOR,
        examples=ctx.cfg.max_examples,
    )


@dataclass
class _Tally:
    failures: list[ProbeFailure]
    unprobed: list[tuple[str, str]]
    not_applicable: list[tuple[str, str]]
    seconds: dict[str, float]
    tests: dict[str, set[str]]
    tampering: dict[Tamper, None]


def run(
    plan: Plan,
    runner: Runner,
    budget: float,
    repro: Callable[[ProbeSession, str], str],
    clock: Callable[[], float] = time.monotonic,
    max_timeout: float = 1200.0,
) -> AnswerProbes:
    """Every planned session in order while the budget lasts."""
    tally = _Tally([], [], [], {}, {}, {})
    deadline = clock() + budget
    for session in plan_of.sessions(plan):
        for kind in session.kinds:
            tally.tests.setdefault(kind, set()).update(session.runs)
        remaining = deadline - clock()
        if remaining <= 0:
            tally.unprobed += [(kind, n) for n in session.runs for kind in session.kinds]
            continue
        started = clock()
        timeout = min(max_timeout, remaining)
        result = runner(session, timeout)
        share = (clock() - started) / len(session.kinds)
        for kind in session.kinds:
            tally.seconds[kind] = tally.seconds.get(kind, 0.0) + share
        _judge(session, result, timeout < max_timeout, tally, repro)
        tally.tampering.update(dict.fromkeys(result.tampering))
    tally.failures = _attributed(tally.failures)
    return AnswerProbes(
        flipped=plan.flipped,
        failures=tuple(tally.failures),
        unprobed=tuple(tally.unprobed),
        not_applicable=tuple(tally.not_applicable),
        records=_records(tally),
        tampering=tuple(tally.tampering),
    )


def _judge(
    session: ProbeSession,
    result: RunResult,
    budget_bound: bool,
    tally: _Tally,
    repro: Callable[[ProbeSession, str], str],
) -> None:
    """Each flipped test of the session: every one of its runs must pass; the first run
    that does not is the finding of its probe."""
    for nodeid, runs in session.runs.items():
        for run, probe in runs:
            outcome = result.outcome_of(run)
            if outcome.passed:
                continue
            if probe == plan_of.PLAIN and outcome.outcome == "skipped":
                tally.not_applicable.append((probe, nodeid))
                continue
            if result.timed_out and budget_bound and outcome.outcome == "missing":
                tally.unprobed.append((probe, nodeid))
            else:
                message = _why(outcome, result, run != nodeid and run)
                probe = plan_of.probe_of(probe, message)
                tally.failures.append(ProbeFailure(probe, nodeid, message, repro(session, nodeid)))
            break
    if result.canary_problem:
        for nodeid, runs in session.runs.items():
            message = f"result channel compromised: {result.canary_problem}"
            failure = ProbeFailure(runs[0][1], nodeid, message, repro(session, nodeid))
            tally.failures.append(failure)


def _attributed(failures: list[ProbeFailure]) -> list[ProbeFailure]:
    """A plain call that fails where the alone or fresh-inputs probe fails too says nothing
    of its own: the first call in a fresh process, or fresh examples, explain it."""
    explained = {f.nodeid for f in failures if f.probe in (plan_of.ALONE, plan_of.FRESH)}
    return [f for f in failures if not (f.probe == plan_of.PLAIN and f.nodeid in explained)]


def _why(outcome: Outcome, result: RunResult, copy: str | bool) -> str:
    """Why a run did not pass; `copy`: the nodeid of a repeated run, else False."""
    if outcome.outcome in ("missing", "deselected") and not result.closed:
        return "the probe run ended without its closing record" + (
            " (timed out)" if result.timed_out else ""
        )
    text = summary(outcome.message) or outcome.outcome
    where = f" on run {str(copy).rsplit('@', 1)[-1]}" if copy else ""
    return f"{outcome.outcome}{where}: {text}"[:MAX_MESSAGE]


COUNTEREXAMPLE = ("Falsifying example", "Failing test case")


def summary(message: str) -> str:
    """Hypothesis' counterexample and pytest's `E` lines: on what input, what failed."""
    lines = [line.strip() for line in message.splitlines()]
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        text = line[2:].strip() if line.startswith("E ") else line
        if text.startswith(COUNTEREXAMPLE):
            call, used = _call(lines[index:], text)
            kept.insert(0, "counterexample: " + call)
            index += used
            continue
        if line.startswith("E ") and not text.startswith(("+ ", "and ")):
            kept.append(text)
        index += 1
    if not kept:
        kept = [line.strip() for line in lines if line.strip()][-1:]
    seen: list[str] = []
    for line in kept:
        if line not in seen:
            seen.append(line)
    return " | ".join(seen[:6])


def _call(lines: list[str], header: str) -> tuple[str, int]:
    """`test_x(a=0, b=1)` from Hypothesis' lines `Failing test case: test_x(`, `a=0,`, ...,
    and how many lines it took."""
    parts = [header.split(":", 1)[-1].strip()]
    used = 1
    while used < min(len(lines), 12) and not parts[-1].endswith(")"):
        line = lines[used]
        parts.append(line[2:].strip() if line.startswith("E ") else line)
        used += 1
    call = " ".join(part for part in parts if part)
    return call.replace("( ", "(").replace(", )", ")").replace(" )", ")"), used


def _records(tally: _Tally) -> tuple[ProbeRecord, ...]:
    records = []
    for kind in plan_of.KINDS:
        tests = tally.tests.get(kind, set())
        if not tests:
            continue
        failed = {f.nodeid for f in tally.failures if f.probe == kind}
        skipped = {n for k, n in tally.not_applicable if k == kind}
        over = {n for k, n in tally.unprobed if k == kind}
        outcome = "fail" if failed else "over budget" if over else "pass"
        parts = [
            f"{count} {what}"
            for count, what in (
                (len(failed), "failed"),
                (len(over), "not run: budget"),
                (len(skipped), "not applicable"),
            )
            if count
        ]
        seconds = round(tally.seconds.get(kind, 0.0), 3)
        records.append(ProbeRecord(kind, outcome, seconds, len(tests), ", ".join(parts)))
    return tuple(records)
