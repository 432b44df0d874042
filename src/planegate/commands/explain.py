"""`planegate explain`: a rule id (PG201) or an exit code (3), in words."""

from __future__ import annotations

import argparse

from planegate import exitcodes, links
from planegate.errors import UsageError


def run(args: argparse.Namespace) -> int:
    from planegate.rules import RULES

    what = args.what.strip()
    rule = RULES.get(what.upper())
    if rule is not None:
        print(f"{rule.id} ({rule.step.value}, exit {rule.step.exit_code}): {rule.title}")
        print(f"why: {rule.why}")
        print(f"fix: {rule.how_to_fix}")
        print(f"agent may fix: {'yes' if rule.agent_may_fix else 'no'}")
        print(f"more: {links.rule_help(rule.id)}")
        return exitcodes.PASS
    if what.isdigit() and (entry := exitcodes.describe(int(what))) is not None:
        print(f"exit {entry.code} ({entry.name}): {entry.meaning}; owner: {entry.owner}")
        print(f"more: {links.doc('exit-codes.md')}")
        return exitcodes.PASS
    raise UsageError(
        f"explain {what!r}: not a rule id (PG201) or an exit code",
        f"see {links.doc('findings.md')} and {links.doc('exit-codes.md')}",
    )
