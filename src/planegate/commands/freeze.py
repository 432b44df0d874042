"""`planegate freeze`: append a freeze event for a nodeid from an evidence bundle."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from planegate import exitcodes
from planegate.commands.common import load_worktree_config, root_of
from planegate.errors import InputDataError, UsageError

if TYPE_CHECKING:
    from datetime import date


def review_by(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        from datetime import date

        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--review-by {text!r}: expected a date (YYYY-MM-DD)") from None


def run(args: argparse.Namespace) -> int:
    from planegate.freeze import bundles, ledger
    from planegate.repo.hashing import bytes_sha256

    root = root_of(args)
    cfg = load_worktree_config(root, args.config)
    evidence = args.evidence if args.evidence.is_absolute() else root / args.evidence
    obj, digest = bundles.read_bundle(evidence)
    if obj.get("nodeid") != args.nodeid:
        raise InputDataError(
            f"{args.evidence}: the evidence is about {obj.get('nodeid')!r}, not {args.nodeid!r}"
        )
    request = bundles.FreezeRequest(
        args.owner,
        args.note,
        review_by(args.review_by),
        flake_class=args.flake_class,
        confidence=args.confidence,
    )
    event = bundles.freeze_event(obj, digest, request)
    if isinstance(event, ledger.EventErrors):
        raise UsageError(f"cannot freeze {args.nodeid}: {'; '.join(event.messages)}")
    stored = root / bundles.EVIDENCE_DIR / f"{digest}.json"
    if not stored.is_file() or bytes_sha256(stored.read_bytes()) != digest:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(evidence.read_bytes())
    bundles.append_events(root / cfg.ledger, [event], cfg.ledger)
    print(
        f"planegate: froze {args.nodeid} ({event.flake_class}, owner {event.owner}); "
        f"a thaw needs {event.thaw_runs_required} clean runs"
    )
    return exitcodes.PASS
