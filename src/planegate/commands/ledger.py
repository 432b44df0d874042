"""`planegate ledger check`: check the freeze ledger (one JSON event a line)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from planegate import exitcodes
from planegate.commands.common import load_worktree_config, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.freeze import ledger

    root = root_of(args)
    name = args.file or load_worktree_config(root, args.config).ledger
    path = Path(name) if Path(name).is_absolute() else root / name
    today = date.today()
    problems = ledger.check_file(path, today)
    for problem in problems:
        print(
            f"{name}:{problem.line}: {problem.message}"
            if problem.line
            else f"{name}: {problem.message}"
        )
    if problems:
        count = len(problems)
        print(f"planegate: {count} problem{'' if count == 1 else 's'} in {name}", file=sys.stderr)
        return exitcodes.DATA
    parsed = ledger.parse(path.read_text("utf-8"), name)
    for due in ledger.replays_due(parsed.state(), today):
        print(
            f"{name}:{due.line}: replay due for {due.nodeid} since {due.review_by} "
            f"({due.days_overdue} days; owner {due.owner})"
        )
    print(f"planegate: {name}: {len(parsed.events)} events, {len(parsed.state())} frozen")
    return exitcodes.PASS
