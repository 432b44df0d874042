"""`planegate init`: propose a planegate.yml for an existing suite."""

from __future__ import annotations

import argparse
from pathlib import Path

from planegate.commands.common import emit_config, progress_of, refuse_existing, root_of
from planegate.errors import UnknownRevision, UsageError

UNCOMMITTED = (
    "the repository has no commit yet: `digest` and `gate` read the suite and planegate.yml "
    "from commits; commit them (after `planegate lock`)"
)


def run(args: argparse.Namespace) -> int:
    from planegate.init import suite
    from planegate.init.collect import Collector

    root = root_of(args)
    committed = has_commit(root)
    if args.write:
        refuse_existing(root)  # before --split changes the working tree
    options = suite.InitOptions(
        root,
        tuple(args.tests),
        tuple(dict.fromkeys(["hypothesis", *args.plugin])),
        args.split,
        trace=not args.no_trace,
    )
    collect = Collector(root, options.plugins, options.trace)
    try:
        proposal = suite.propose(options, collect, progress_of(args))
    except suite.NoTests:
        if committed:
            raise
        raise UsageError(
            f"{root}: the repository has no commit yet and pytest collects no test in it",
            "add the project and its tests and commit them: `git add -A && git commit`; then "
            "run `planegate init`",
        ) from None
    if collect.traced is not None:
        from planegate.init.discovery_notes import propose_data

        propose_data(root, proposal, collect.traced, verbose=args.verbose)
    if not committed:
        proposal.notes.append(UNCOMMITTED)
    return emit_config(root, proposal.text, proposal.notes, args.write)


def has_commit(root: Path) -> bool:
    """Whether `root`'s repository has a commit; a folder that is not a repository is a usage
    error (exit 64): every command after init reads commits."""
    from planegate.repo.git import GitRepo

    try:
        GitRepo(root).resolve("HEAD")
    except UnknownRevision:
        return False
    return True
