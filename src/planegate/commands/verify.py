"""`planegate verify`: check the fixture data files against the manifest."""

from __future__ import annotations

import argparse
import sys

from planegate import exitcodes
from planegate.commands import json_output
from planegate.commands.common import data_hashes, load_worktree_config, read_manifest, root_of
from planegate.errors import InputDataError


def run(args: argparse.Namespace) -> int:
    from planegate.config import manifest as fixtures

    root = root_of(args)
    cfg = load_worktree_config(root, args.config)
    manifest = read_manifest(root, cfg)
    if manifest is None:
        raise InputDataError(f"{cfg.manifest}: no such file", "create it with `planegate lock`")
    hashes: dict[str, str | None] = dict(data_hashes(root, cfg))
    for path in manifest.files:
        hashes.setdefault(path, None)
    mismatches = fixtures.verify(manifest, hashes)
    code = exitcodes.EVIDENCE if mismatches else exitcodes.PASS
    if json_output.wanted(args):
        json_output.emit(
            "verify",
            {
                "command": "verify",
                "exit_code": code,
                "manifest": cfg.manifest,
                "locked": len(manifest.files),
                "mismatches": [
                    {
                        "path": m.path,
                        "kind": m.kind,
                        "expected": m.expected,
                        "actual": m.actual,
                        "message": m.describe(),
                    }
                    for m in mismatches
                ],
            },
        )
        return code
    for mismatch in mismatches:
        print(f"{mismatch.path}: {mismatch.describe()}")
    if mismatches:
        print(
            f"planegate: {len(mismatches)} fixture files do not match {cfg.manifest}",
            file=sys.stderr,
        )
        return exitcodes.EVIDENCE
    print(f"planegate: {len(manifest.files)} fixture files match {cfg.manifest}")
    return exitcodes.PASS
