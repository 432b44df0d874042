"""`planegate init`: propose a planegate.yml for an existing suite."""

from __future__ import annotations

import argparse

from planegate.commands.common import emit_config, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.config import init_suite

    root = root_of(args)
    result = init_suite.propose(root, args.tests)
    if not getattr(args, "no_trace", False):
        from planegate.commands.observe import propose_data

        propose_data(root, result, args.tests)
    return emit_config(root, result.text, result.notes, args.write)
