"""`planegate digest`: write main's digest of protected evidence."""

from __future__ import annotations

import argparse

from planegate import exitcodes
from planegate.commands import json_output
from planegate.commands.common import progress_of, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.gate.digest_check import build_digest
    from planegate.repo import digest_format as digest_mod
    from planegate.repo.git import GitRepo

    repo = GitRepo(root_of(args))
    commit = repo.resolve(args.commit)
    result = build_digest(
        repo, commit, args.config, progress_of(args), run_tests=not args.collect_only
    )
    out = args.out if args.out.is_absolute() else root_of(args) / args.out
    out.write_text(digest_mod.to_json(result), "utf-8")
    if json_output.wanted(args):
        not_passing = None if result.run is None else len(result.run.not_passed)
        json_output.emit(
            "digest-summary",
            {
                "command": "digest",
                "exit_code": exitcodes.PASS,
                "commit": commit,
                "out": str(out),
                "protected_files": len(result.files),
                "root": result.root,
                "inventory": {plane: len(ids) for plane, ids in result.inventory.items()},
                "not_passing_on_main": not_passing,
            },
        )
        return exitcodes.PASS
    counts = ", ".join(f"{len(ids)} {plane}" for plane, ids in result.inventory.items())
    ran = "" if result.run is None else f", {len(result.run.not_passed)} not passing on main"
    if result.run is None and not args.collect_only:  # progress said why, unless quiet
        ran = ", main's run not recorded (gates run the base's side themselves)"
    print(
        f"planegate: digest of {commit[:12]}: {len(result.files)} protected files, root "
        f"{result.root[:16]}, {counts}{ran} -> {out}"
    )
    return exitcodes.PASS
