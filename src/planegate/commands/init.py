"""`planegate init`: propose a planegate.yml for an existing suite."""

from __future__ import annotations

import argparse

from planegate.commands.common import emit_config, progress_of, refuse_existing, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.init import suite
    from planegate.init.collect import Collector

    root = root_of(args)
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
    proposal = suite.propose(options, collect, progress_of(args))
    if collect.traced is not None:
        from planegate.init.discovery_notes import propose_data

        propose_data(root, proposal, collect.traced, verbose=args.verbose)
    return emit_config(root, proposal.text, proposal.notes, args.write)
