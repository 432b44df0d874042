"""`planegate gate`: run the ordered gate on the patch against main and print the report."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from planegate.commands.common import progress_of, root_of

if TYPE_CHECKING:
    from planegate.report import Report


def run(args: argparse.Namespace) -> int:
    from planegate.gate import pipeline as gate
    from planegate.gate.context import GateOptions
    from planegate.report import text

    options = GateOptions(
        root=root_of(args),
        base=args.base,
        head=args.head,
        digest_file=args.digest,
        config_path=args.config,
        agent=not args.human,
        author=args.author,
    )
    report = gate.run(options, progress_of(args))
    if args.output is not None:
        to_file = text.colour_wanted(None, os.environ)  # a file is coloured only when forced
        args.output.write_text(render(report, args.format, color=to_file), "utf-8")
        if args.format != "text":
            sys.stdout.write(text.render(report))
    else:
        sys.stdout.write(render(report, args.format))
    return report.exit_code


def render(report: Report, form: str, color: bool | None = None) -> str:
    """`color` None: decided from stdout and the environment."""
    from planegate import __version__
    from planegate.report import json_report, sarif, text

    if form == "json":
        return json_report.render(report)
    if form == "sarif":
        return sarif.render(report, version=__version__)
    return text.render(report, color=color)
