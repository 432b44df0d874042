"""`planegate ledger check`: check the freeze ledger (one JSON event a line)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import Any

from planegate import exitcodes
from planegate.commands import json_output
from planegate.commands.common import load_worktree_config, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.freeze import ledger

    root = root_of(args)
    name = args.file or load_worktree_config(root, args.config).ledger
    path = Path(name) if Path(name).is_absolute() else root / name
    today = date.today()
    exists = path.exists() or args.file is not None  # a file named on the line must exist
    problems = ledger.check_file(path, today) if exists else []
    result: dict[str, Any] = {
        "command": "ledger check",
        "exit_code": exitcodes.DATA if problems else exitcodes.PASS,
        "ledger": name,
        "exists": exists,
        "problems": [{"line": p.line or None, "message": p.message} for p in problems],
        "events": None,
        "frozen": None,
        "replays_due": [],
    }
    if not problems:
        parsed = ledger.parse(path.read_text("utf-8") if exists else "", name)
        result["events"], result["frozen"] = len(parsed.events), len(parsed.state())
        result["replays_due"] = [
            {
                "nodeid": due.nodeid,
                "owner": due.owner,
                "review_by": due.review_by.isoformat(),
                "line": due.line,
                "days_overdue": due.days_overdue,
            }
            for due in ledger.replays_due(parsed.state(), today)
        ]
    if json_output.wanted(args):
        json_output.emit("ledger-check", result)
    else:
        _print(result)
    return int(result["exit_code"])


def _print(result: dict[str, Any]) -> None:
    name = result["ledger"]
    for problem in result["problems"]:
        where = f"{name}:{problem['line']}" if problem["line"] else name
        print(f"{where}: {problem['message']}")
    if result["problems"]:
        count = len(result["problems"])
        print(f"planegate: {count} problem{'' if count == 1 else 's'} in {name}", file=sys.stderr)
        return
    for due in result["replays_due"]:
        print(
            f"{name}:{due['line']}: replay due for {due['nodeid']} since {due['review_by']} "
            f"({due['days_overdue']} days; owner {due['owner']})"
        )
    if not result["exists"]:
        print(f"planegate: {name}: no ledger yet (the gate reads it as empty): nothing frozen")
        return
    print(f"planegate: {name}: {result['events']} events, {result['frozen']} frozen")
