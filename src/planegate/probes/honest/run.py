"""Honest values after the head's scoring run (docs/runner.md, "Honest values"): each value
main's asserts compared that lied is the patch's unless main shows the same.

- A value that equals anything (`unittest.mock.ANY`, an `__eq__` that says yes) is main's
  when the same test, run on the base's tree with the same check (one small session, only
  when something lied; none when main's run in the digest recorded its lies), shows the same
  operand of the same assert lying with the same type: a warning for the plane's owner
  (PG146); otherwise the patch's (PG145).
- A builtin comparison bent by a class of the tree is the patch's when the method is new or
  changed (PG145); one main already has, unchanged, is main's when the base shows the same
  bent value in the same assert (PG146), else the patch's: main's lenient class, returned
  where main returns a plain value, is the patch's lie.
- A closed run without the plugin's record is PG147: the check was taken out of the run.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import replace

from planegate.probes.answers import findings as answers_findings
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure, joined
from planegate.probes.honest.child.values import ANYTHING
from planegate.probes.honest.plan import HONEST, LIED, MAINS, UNCLOSED, plugins
from planegate.probes.honest.wire import Lie, lies_of
from planegate.probes.protocol import Found, HeadRun, ProbeContext
from planegate.report import ProbeRecord
from planegate.runner.spec import Sessions, pytest_args


def after_head(head: HeadRun, found: Found) -> Found:
    return replace(found, answers=joined(found.answers, check(head)))


def check(head: HeadRun) -> AnswerProbes:
    started = time.monotonic()
    result, ctx = head.result, head.ctx
    if not result.closed or result.canary_problem:
        return _record("not run", 0.0, 0, "the head's run did not hold: its own finding stands")
    reported = lies_of(result.extra)
    if reported is None:
        failure = ProbeFailure(
            UNCLOSED,
            "",
            "the scoring run closed without the honest-values record: the check of the "
            "values main's asserts compare was taken out of the run",
            f"{head.checkout}, then run the gate again",
        )
        return replace(_record("fail", 0.0, 0, "no record came"), failures=(failure,))
    lies, checked = reported
    if not lies:
        return _record("pass", 0.0, checked, f"{checked} comparisons checked")
    recorded = None if head.base.main is None else head.base.main.lies
    mains = _mains(ctx, lies) if recorded is None else frozenset(recorded)
    failures = tuple(_failure(ctx, lie, mains, head.checkout) for lie in lies)
    outcome = "fail" if any(f.probe == LIED for f in failures) else "pass"
    detail = f"{checked} comparisons checked, {len(lies)} values lied"
    if recorded is not None:
        detail += f"; main's {len(recorded)} from its run in the digest"
    found = _record(outcome, time.monotonic() - started, checked, detail)
    return replace(found, failures=failures)


def _mains(ctx: ProbeContext, lies: tuple[Lie, ...]) -> frozenset[tuple[str, str, int, str, str]]:
    """The lies main shows too: the tests whose values equalled anything, on the base's tree
    with the same check (nothing when the base's session did not hold)."""
    nodeids = tuple(sorted({lie.nodeid for lie in lies if not _new_bend(ctx, lie)}))
    if not nodeids:
        return frozenset()
    with ctx.repo.worktree(ctx.base.commit) as tree:
        trusted = frozenset(ctx.protection.select(ctx.base.files))
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        result = sessions.run(
            targets=nodeids,
            deselect=frozenset(ctx.frozen),
            timeout=min(ctx.cfg.pytest_timeout, ctx.cfg.probe_budget),
            child_plugins=plugins(ctx),
        )
    there = lies_of(result.extra) if result.closed and not result.canary_problem else None
    return frozenset(lie.key for lie in there[0]) if there is not None else frozenset()


def _failure(
    ctx: ProbeContext, lie: Lie, mains: frozenset[tuple[str, str, int, str, str]], checkout: str
) -> ProbeFailure:
    where = f"{lie.where}: `{lie.text}` ({lie.type})"
    returned = f", returned by {lie.producer}" if lie.producer else ""
    if lie.kind == ANYTHING:
        kind = MAINS if lie.key in mains else LIED
        what = f"{where} {lie.how.removeprefix('it ')}{returned}: a value equal to anything"
        what += " passes any assert that compares it" + (", on main too" if kind == MAINS else "")
    else:
        kind = LIED if _new_bend(ctx, lie) or lie.key not in mains else MAINS
        what = (
            f"{where}{returned}: {lie.how}, which answers otherwise than the builtin it stands for"
        )
        what += ", on main too" if kind == MAINS else ""
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [*pytest_args(ctx.cfg), lie.nodeid]
    return ProbeFailure(kind, lie.nodeid, what, f"{checkout} && {shlex.join(args)}")


def _new_bend(ctx: ProbeContext, lie: Lie) -> bool:
    """A bent builtin comparison whose method the patch adds or changes (no need to ask main)."""
    if lie.kind == ANYTHING:
        return False
    match = answers_findings.DELEGATED.search(lie.how)
    if match is None:
        return True
    line = int(match["line"]) if match["line"] else None
    return answers_findings.method_changed(
        ctx, match["path"], match["target"], match["method"], line
    )


def _record(outcome: str, seconds: float, tests: int, detail: str) -> AnswerProbes:
    return AnswerProbes(records=(ProbeRecord(HONEST, outcome, round(seconds, 3), tests, detail),))
