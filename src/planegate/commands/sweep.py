"""`planegate sweep`: rerun the suite in several modes and propose freezes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planegate import exitcodes
from planegate.commands.common import load_worktree_config, progress_of, root_of
from planegate.config.defaults import MAX_PROPOSALS
from planegate.errors import UsageError

if TYPE_CHECKING:
    from planegate.freeze.sweep_run import SweepOutcome


def run(args: argparse.Namespace) -> int:
    from planegate.freeze import sweep_run

    root = root_of(args)
    if args.runs < 1:
        raise UsageError(f"--runs {args.runs}: a sweep needs at least one run")
    options = sweep_run.SweepOptions(
        root=root,
        commit=args.commit,
        runs=args.runs,
        seed=args.seed,
        config_path=args.config,
        owner=args.owner,
        broken_here=args.broken_here,
    )
    from planegate.junit import sweep as junit_sweep  # runner: junit runs its own command

    junit = junit_sweep.wanted(options)
    outcome = (junit_sweep.sweep if junit else sweep_run.sweep)(options, progress_of(args))
    print(
        f"planegate: swept {outcome.commit[:12]}: {outcome.suite_size} tests, "
        f"{len(outcome.runs)} runs, seed {outcome.seed}"
    )
    for note in outcome.notes:
        print(f"planegate: {note}")
    if outcome.trouble is not None:
        print(f"planegate: environment trouble, nothing proposed: {outcome.trouble}")
        return exitcodes.UNAVAILABLE
    _propose(root, args, outcome)
    return _base_broken(outcome, hint=not junit)


def _propose(root: Path, args: argparse.Namespace, outcome: SweepOutcome) -> None:
    """Write the proposals file, list it, and append to the ledger when --write says so."""
    from planegate.freeze import bundles, ledger

    proposals = args.proposals if args.proposals.is_absolute() else root / args.proposals
    proposals.parent.mkdir(parents=True, exist_ok=True)
    proposals.write_text(
        "".join(ledger.render_event(p.event) + "\n" for p in outcome.proposals), "utf-8"
    )
    for proposal in outcome.proposals:
        event = proposal.event
        print(
            f"propose freeze {event.nodeid}: {event.flake_class} "
            f"(confidence {event.class_confidence:.2f}), failed {event.failures}/{event.runs} "
            f"in mode {event.mode}; evidence {proposal.bundle_path.relative_to(root)}"
        )
    for nodeid in outcome.decision.over_limit:
        print(f"not proposed (at most {MAX_PROPOSALS} a sweep): {nodeid}")
    for nodeid in outcome.decision.already_frozen:
        print(f"already frozen: {nodeid}")
    print(f"planegate: {len(outcome.proposals)} proposals -> {proposals}")
    if args.write and outcome.proposals:
        cfg = load_worktree_config(root, args.config)
        bundles.append_events(root / cfg.ledger, [p.event for p in outcome.proposals], cfg.ledger)
        print(f"planegate: appended {len(outcome.proposals)} freeze events to {cfg.ledger}")


def _base_broken(outcome: SweepOutcome, hint: bool) -> int:
    for nodeid in outcome.base_broken:
        print(f"base broken: {nodeid} failed every run, and alone")
    if not outcome.base_broken:
        return exitcodes.PASS
    count = len(outcome.base_broken)
    way_out = (
        "; or, when main passes where the project's own CI runs and they fail only here "
        "(another interpreter, platform or time-zone data), "
        "`planegate sweep --broken-here` proposes an `env` freeze for each, tied to this "
        "environment's fingerprint (docs/freeze.md)"
    )
    print(
        f"planegate: the base is broken: {count} test{'s' if count != 1 else ''} "
        f"failed on every run, and alone: fix them{way_out if hint else ''}",
        file=sys.stderr,
    )
    return exitcodes.BASE_BROKEN
