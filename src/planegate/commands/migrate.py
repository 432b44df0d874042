"""`planegate migrate`: write planegate.yml from planes.json / scoring_map.yaml."""

from __future__ import annotations

import argparse
from pathlib import Path

from planegate.commands.common import emit_config, root_of


def run(args: argparse.Namespace) -> int:
    from planegate.init import migrate

    root = root_of(args)
    result = migrate.migrate([Path(f) if Path(f).is_absolute() else root / f for f in args.files])
    return emit_config(root, result.text, result.notes, args.write)
