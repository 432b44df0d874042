"""The rule catalogue: stable ids, what each means, and who may fix it (docs/findings.md).

Each step's rules are listed in the module named after the step (the hunks step's also in
`hunks_kernel.py`).
"""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules import evidence, hunks, hunks_kernel, inventory, ledger, planes
from planegate.rules.rule_type import Rule

__all__ = ["RULES", "Rule", "catalogue_markdown"]

RULES: dict[str, Rule] = {
    entry.id: entry
    for module in (inventory, evidence, ledger, hunks, hunks_kernel, planes)
    for entry in module.RULES
}


def catalogue_markdown() -> str:
    """docs/findings.md: one anchor per rule, grouped by step (`make docs` writes it)."""
    lines = [
        "# Findings catalogue",
        "",
        "Every finding names a rule with a stable id: `PG` + the digit of its step's exit code",
        "(`PG2xx` inventory, `PG3xx` evidence, `PG4xx` ledger, `PG5xx` hunks, `PG1xx` planes).",
        "`planegate explain PGxxx` prints the same text. This file is generated from",
        "`src/planegate/rules/` by `make docs`; a test keeps the two in step.",
        "The test-hunk rules have before/after examples in [findings-hunks.md](findings-hunks.md).",
    ]
    for step in Step:
        rules = sorted((r for r in RULES.values() if r.step is step), key=lambda r: r.id)
        lines += ["", f"## Step: {step.value} (exit {step.exit_code})", ""]
        for entry in rules:
            may = "yes (production code)" if entry.agent_may_fix else "no (protected evidence)"
            lines += [
                f"### {entry.id}",
                "",
                f"**{entry.title}.** {entry.why}",
                "",
                f"- How to fix: {entry.how_to_fix}",
                f"- May the patch's author fix it in the same patch: {may}",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"
