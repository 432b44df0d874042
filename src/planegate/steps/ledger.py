"""Step 4, ledger (exit 4): valid events, no replay overdue, the frozen share within budget."""

from __future__ import annotations

from planegate.findings import Step
from planegate.freeze import ledger
from planegate.gitfacts import GitFacts
from planegate.report import StepResult
from planegate.steps.run_facts import RunFacts, finished


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    cfg = ctx.cfg
    suite_size = len(run.head_run.collected) if finished(run.head_run) else None
    findings = ledger.check(
        ctx.ledger_base,
        ctx.ledger_head,
        cfg.ledger,
        ctx.today,
        default_owner=ctx.who.of_plane("freeze", cfg.ledger),
        suite_size=suite_size,
        max_fraction=cfg.max_frozen_fraction,
    )
    frozen = len(ledger.frozen_nodeids(ctx.ledger_base, cfg.ledger))
    if suite_size is None:
        note = f"{frozen} frozen; frozen fraction not checked: the test run did not finish"
        return StepResult(Step.LEDGER, tuple(findings), (note,))
    return StepResult(Step.LEDGER, tuple(findings), (f"{frozen} frozen of {suite_size} nodeids",))
