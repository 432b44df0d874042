"""`planegate thaw`: replay a frozen test; append a thaw (all clean) or a renew."""

from __future__ import annotations

import argparse

from planegate import exitcodes
from planegate.commands.common import load_worktree_config, progress_of, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.freeze import thaw_run

    root = root_of(args)
    load_worktree_config(root, args.config)  # a clear error before any run
    options = thaw_run.ThawOptions(
        root=root,
        nodeid=args.nodeid,
        commit=args.commit,
        seed=args.seed,
        owner=args.owner,
        note=args.note,
        config_path=args.config,
    )
    outcome = thaw_run.thaw(options, progress_of(args))
    evidence = outcome.bundle_path.relative_to(root)
    if outcome.failures:
        print(
            f"planegate: {args.nodeid} failed on run {outcome.runs}: renewed (still frozen); "
            f"evidence {evidence}"
        )
    else:
        print(f"planegate: {args.nodeid} passed {outcome.runs} runs: thawed; evidence {evidence}")
    return exitcodes.PASS
