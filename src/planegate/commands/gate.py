"""`planegate gate`: run the ordered gate on the patch against main and print the report."""

from __future__ import annotations

import argparse
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
    rendered = render(report, args.format)
    if args.output is not None:
        args.output.write_text(rendered, "utf-8")
        if args.format != "text":
            sys.stdout.write(text.render(report))
    else:
        sys.stdout.write(rendered)
    return report.exit_code


def render(report: Report, form: str) -> str:
    from planegate import __version__
    from planegate.report import json_report, sarif, text

    if form == "json":
        return json_report.render(report)
    if form == "sarif":
        return sarif.render(report, version=__version__)
    return text.render(report)
