"""`planegate lint`: check property-plane files for wall-clock time, network, global RNG."""

from __future__ import annotations

import argparse

from planegate import exitcodes
from planegate.commands import json_output
from planegate.commands.common import load_worktree_config, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.analysis import lint
    from planegate.config import planemap as planes

    root = root_of(args)
    cfg = load_worktree_config(root, args.config)
    plane_map = planes.PlaneMap(cfg)
    relative = (path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    files = sorted(
        rel
        for rel in relative
        if not any(part.startswith(".") for part in rel.split("/"))
        and plane_map.plane_of_file(rel) == "property"
    )
    found = [
        finding
        for rel in files
        for finding in lint.base_findings(rel, (root / rel).read_text("utf-8", "replace"), "")
    ]
    messages = [finding.message.removesuffix(" (already on the base)") for finding in found]
    code = exitcodes.HUNKS if found else exitcodes.PASS
    if json_output.wanted(args):
        json_output.emit(
            "lint",
            {
                "command": "lint",
                "exit_code": code,
                "files": len(files),
                "findings": [
                    {"rule": f.rule, "path": f.path, "line": f.line, "message": message}
                    for f, message in zip(found, messages, strict=True)
                ],
            },
        )
        return code
    for finding, message in zip(found, messages, strict=True):
        print(f"{finding.location}: {finding.rule} {message}")
    if found:
        print(f"planegate: {len(found)} violations in {len(files)} property-plane files")
        return exitcodes.HUNKS
    print(f"planegate: {len(files)} property-plane files, no violations")
    return exitcodes.PASS
