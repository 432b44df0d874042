"""`planegate action`: the verb's handler. Its phases (`commands/action.py`) import the whole
gate, so they are imported only when the verb runs and the other verbs start fast."""

from __future__ import annotations

import argparse

from planegate.commands.common import progress_of


def run(args: argparse.Namespace) -> int:
    from planegate.commands import action

    return action.main(progress_of(args))
