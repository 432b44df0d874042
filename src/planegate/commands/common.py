"""What several verbs share: the -C root, progress, and the configuration on disk."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planegate import exitcodes
from planegate.errors import ConfigError, UsageError
from planegate.progress import Progress

if TYPE_CHECKING:  # the configuration's loaders are imported by the verbs that read one
    from planegate.config.load import Config
    from planegate.config.manifest import Manifest


def root_of(args: argparse.Namespace) -> Path:
    root = Path(getattr(args, "root", "."))
    if not root.is_dir():
        raise UsageError(f"-C {root}: no such directory")
    return root


def progress_of(args: argparse.Namespace) -> Progress:
    return Progress(quiet=bool(getattr(args, "quiet", False)))


def load_worktree_config(root: Path, requested: str | None) -> Config:
    """The configuration as it is on disk (for commands a person runs in a checkout)."""
    from planegate.config import load as config_mod

    existing = {p.name for p in root.iterdir() if p.is_file()}
    name = config_mod.find_config_name(existing, requested)
    if name is None and requested is not None and (root / requested).is_file():
        name = requested
    if name is None:
        raise config_mod.missing_config_error(requested or "planegate.yml", existing, f"in {root}")
    return config_mod.parse((root / name).read_bytes(), name)


def data_hashes(root: Path, cfg: Config) -> dict[str, str]:
    """sha256 of every fixture-plane data file in the checkout; a symlink is hashed as git
    stores it (its target path), never followed, whether it points to a file, a folder or
    nothing. Only files git tracks count (every file outside git): a tool's cache or an
    ignored file is never locked."""
    from planegate.config.planemap import data_files
    from planegate.repo.git import tracked_files
    from planegate.repo.hashing import bytes_sha256, file_sha256

    entries = checkout_files(root)
    tracked = tracked_files(root)
    if tracked is not None:
        entries = sorted(set(entries) & set(tracked))
    return {
        path: bytes_sha256(os.fsencode(os.readlink(root / path)))
        if (root / path).is_symlink()
        else file_sha256(root / path)
        for path in sorted(data_files(cfg, entries))
    }


def checkout_files(root: Path) -> list[str]:
    """Every file and symlink under `root` as git would list it (no `.git`, links not
    followed into), but the digest `planegate digest` writes there: it is never data."""
    from planegate.repo.digest_format import FILE_NAME

    found = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        dirs[:] = [d for d in dirs if d != ".git"]
        links = [d for d in dirs if (base / d).is_symlink()]
        for name in [*(f for f in files if f != ".git"), *links]:
            found.append((base / name).relative_to(root).as_posix())
    return [path for path in found if path != FILE_NAME]


def read_manifest(root: Path, cfg: Config) -> Manifest | None:
    from planegate.config import manifest as fixtures

    path = root / cfg.manifest
    if not path.is_file():
        return None
    return fixtures.parse(path.read_bytes(), cfg.manifest)


def emit_config(root: Path, text: str, notes: list[str], write: bool) -> int:
    """Print a proposed planegate.yml, or write it when asked and none exists."""
    from planegate.config import load as config_mod

    for note in notes:
        print(f"planegate: {note}", file=sys.stderr)
    config_mod.parse(text, "planegate.yml")  # what we write must load
    if not write:
        sys.stdout.write(text)
        return exitcodes.PASS
    target = refuse_existing(root)
    target.write_text(text, "utf-8")
    print(f"planegate: wrote {target}", file=sys.stderr)
    return exitcodes.PASS


def refuse_existing(root: Path) -> Path:
    """The planegate.yml `--write` writes; an error when one exists (never overwritten)."""
    target = root / "planegate.yml"
    if target.exists():
        raise ConfigError(
            f"{target}: exists already; not overwritten",
            "move it aside, or run without --write and merge by hand",
        )
    return target
