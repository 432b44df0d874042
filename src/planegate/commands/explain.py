"""`planegate explain`: a rule id (PG201) or an exit code (3), in words."""

from __future__ import annotations

import argparse
from typing import Any

from planegate import exitcodes, urls
from planegate.commands import json_output
from planegate.errors import UsageError


def run(args: argparse.Namespace) -> int:
    what = args.what.strip()
    rule, exit_entry = _rule(what), _exit(what)
    if rule is None and exit_entry is None:
        raise UsageError(
            f"explain {what!r}: not a rule id (PG201) or an exit code",
            f"see {urls.doc('findings.md')} and {urls.doc('exit-codes.md')}",
        )
    if json_output.wanted(args):
        json_output.emit(
            "explain",
            {"command": "explain", "exit_code": exitcodes.PASS, "rule": rule, "exit": exit_entry},
        )
    elif rule is not None:
        print(f"{rule['id']} ({rule['step']}, exit {rule['step_exit_code']}): {rule['title']}")
        print(f"why: {rule['why']}")
        print(f"fix: {rule['fix']}")
        print(f"agent may fix: {'yes' if rule['agent_may_fix'] else 'no'}")
        print(f"more: {rule['url']}")
    elif exit_entry is not None:
        print(
            f"exit {exit_entry['code']} ({exit_entry['name']}): {exit_entry['meaning']}; "
            f"owner: {exit_entry['owner']}"
        )
        print(f"more: {exit_entry['url']}")
    return exitcodes.PASS


def _rule(what: str) -> dict[str, Any] | None:
    from planegate.rules import RULES

    rule = RULES.get(what.upper())
    if rule is None:
        return None
    return {
        "id": rule.id,
        "step": rule.step.value,
        "step_exit_code": rule.step.exit_code,
        "title": rule.title,
        "why": rule.why,
        "fix": rule.how_to_fix,
        "agent_may_fix": rule.agent_may_fix,
        "url": urls.rule_help(rule.id),
    }


def _exit(what: str) -> dict[str, Any] | None:
    entry = exitcodes.describe(int(what)) if what.isdigit() else None
    if entry is None:
        return None
    return {
        "code": entry.code,
        "name": entry.name,
        "meaning": entry.meaning,
        "owner": entry.owner,
        "url": urls.doc("exit-codes.md"),
    }
