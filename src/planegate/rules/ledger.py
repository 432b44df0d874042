"""The ledger step's rules (exit 4): the freeze ledger's lines and what they make due."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG401",
        Step.LEDGER,
        "invalid ledger line",
        "The ledger is the only record of why a test does not vote.",
        "Fix the line so it is one JSON event with every required field.",
    ),
    Rule(
        "PG402",
        Step.LEDGER,
        "ledger rewritten",
        "The ledger is append-only: editing or deleting a line rewrites history.",
        "Restore the base's lines; append a new event instead.",
    ),
    Rule(
        "PG403",
        Step.LEDGER,
        "replay due",
        "A freeze past its review_by date must be replayed: a date never thaws a test.",
        "Run `planegate thaw NODEID` (or record a renewal with new evidence).",
    ),
    Rule(
        "PG404",
        Step.LEDGER,
        "too many frozen",
        "A suite with more than the configured share (default 5 %) frozen no longer "
        "measures much: the freeze plane is hiding failures instead of quarantining noise.",
        "Thaw or fix frozen tests (`planegate thaw NODEID`), or have the freeze plane's "
        "owner raise planes.freeze.max_fraction in planegate.yml.",
    ),
)
