"""`planegate gate`: run the ordered gate on the patch against main and print the report;
with `--shard K/N` one slice of it, with `--merge` the shards' evidence judged as one run."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from planegate.commands.common import progress_of, root_of
from planegate.errors import UsageError

if TYPE_CHECKING:
    from planegate.gate.context import GateOptions
    from planegate.progress import Progress
    from planegate.report import Report


def run(args: argparse.Namespace) -> int:
    if args.merge is None:  # a process of its own, started before the gate's imports
        from planegate.runner import contain

        contain.start_user_check(os.environ)
    with _ahead(args):
        report = _gate(args)
    _print(report, args)
    return report.exit_code


def _ahead(args: argparse.Namespace) -> contextlib.AbstractContextManager[None]:
    """The head's test child started now, before the gate's imports and git work, for the
    whole gate of one process (runner/parked.py): its start-up overlaps them."""
    if args.merge is not None or args.shard is not None or args.evidence is not None:
        return contextlib.nullcontext()
    from planegate.runner import parked

    return parked.ahead(root_of(args), os.environ, args.base)


def _gate(args: argparse.Namespace) -> Report:
    from planegate.gate import pipeline as gate
    from planegate.gate.context import GateOptions
    from planegate.repo.digest_format import FILE_NAME

    root = root_of(args)
    options = GateOptions(
        root=root,
        base=args.base,
        head=args.head,
        digest_file=None if args.digest is None else root / args.digest,  # as if run in -C
        worktree_digest=None if args.digest is not None else root / FILE_NAME,
        config_path=args.config,
        agent=not args.human,
        author=args.author,
    )
    if args.merge is not None:
        if args.shard is not None or args.evidence is not None:
            raise UsageError("planegate gate: --merge runs no shard: drop --shard and --evidence")
        report = _merge(options, args, progress_of(args))
    elif args.shard is not None or args.evidence is not None:
        report = _shard(options, args, progress_of(args))
    else:
        report = gate.run(options, progress_of(args))
    return report


def _shard(options: GateOptions, args: argparse.Namespace, progress: Progress) -> Report:
    from planegate.gate import exchange
    from planegate.shards import evidence_file as shard_evidence
    from planegate.shards import run as shard_run
    from planegate.shards.slicing import parse_shard

    if args.shard is None or args.evidence is None:
        raise UsageError("planegate gate: --shard K/N and --evidence PATH go together")
    try:
        shard = parse_shard(args.shard)
    except ValueError as error:
        raise UsageError(f"planegate gate: --shard: {error}") from None
    evidence, report = shard_run.run(options, shard, progress)
    path = args.evidence
    folder = path.parent if str(path.parent) else path.cwd()
    exchange.write_file(folder.resolve(), path.name, shard_evidence.to_json(evidence))
    return report


def _merge(options: GateOptions, args: argparse.Namespace, progress: Progress) -> Report:
    from planegate.shards import evidence_file as shard_evidence
    from planegate.shards import merge as shard_merge

    files = [shard_merge.Named(str(p), shard_evidence.read(p)) for p in args.merge]
    return shard_merge.run(options, files, progress)


def _print(report: Report, args: argparse.Namespace) -> None:
    from planegate.report import text

    if args.output is not None:
        to_file = text.colour_wanted(None, os.environ)  # a file is coloured only when forced
        args.output.write_text(render(report, args.format, color=to_file), "utf-8")
        if args.format != "text":
            sys.stdout.write(text.render(report, verbose=args.verbose))
    else:
        sys.stdout.write(render(report, args.format, verbose=args.verbose))


def render(report: Report, form: str, color: bool | None = None, verbose: bool = False) -> str:
    """`color` None: decided from stdout and the environment; `verbose`: every timer (text)."""
    from planegate import __version__
    from planegate.report import json_report, sarif, text

    if form == "json":
        return json_report.render(report)
    if form == "sarif":
        return sarif.render(report, version=__version__)
    return text.render(report, color=color, verbose=verbose)
