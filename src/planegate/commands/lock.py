"""`planegate lock`: lock the fixture plane's data files in the manifest (a person's act)."""

from __future__ import annotations

import argparse
import sys
from datetime import date

from planegate import exitcodes
from planegate.commands.common import data_hashes, load_worktree_config, read_manifest, root_of
from planegate.errors import UsageError


def run(args: argparse.Namespace) -> int:
    from planegate.config import manifest as fixtures

    root = root_of(args)
    cfg = load_worktree_config(root, args.config)
    covers = {}
    for item in args.covers:
        path, sep, note = item.partition("=")
        if not sep:
            raise UsageError(f"--covers {item!r}: expected PATH=TEXT")
        covers[path] = note
    previous = read_manifest(root, cfg)
    hashes = data_hashes(root, cfg)
    manifest = fixtures.lock(previous, hashes, date.today().isoformat(), covers)
    target = root / cfg.manifest
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(fixtures.render(manifest), "utf-8")
    changed = [p for p in hashes if previous is None or previous.files.get(p) != hashes[p]]
    print(
        f"planegate: locked {len(hashes)} fixture data files in {cfg.manifest} "
        f"({len(changed)} new or changed)"
    )
    from planegate.init.discovery_notes import lock_warnings

    for warning in lock_warnings(root, cfg, hashes, trace=not getattr(args, "no_trace", False)):
        print(f"planegate: warning: {warning}", file=sys.stderr)
    return exitcodes.PASS
