"""Restore main's evidence in a worktree of the patch: the evidence that votes is main's."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class OverlayResult:
    restored: tuple[str, ...]
    removed: tuple[str, ...]
    kept: frozenset[str] = frozenset()  # every protected file of the base now in the tree


def apply(
    tree: Path,
    base_protected: Iterable[str],
    head_protected: Iterable[str],
    read_base: Callable[[str], bytes | None],
    base_links: frozenset[str] = frozenset(),
) -> OverlayResult:
    """Write every protected base file into `tree` (a symlink of `base_links` as a symlink
    to the same target); delete protected files the head added."""
    base_set = set(base_protected)
    restored, removed, kept = [], [], set()
    for path in sorted(base_set):
        data = read_base(path)
        if data is None:
            continue
        kept.add(path)
        target = tree / path
        link = path in base_links
        if _same(target, data, link):
            continue
        if target.is_symlink() or target.is_dir():
            _remove(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        if link:
            os.symlink(os.fsdecode(data), target)
        else:
            target.write_bytes(data)
        restored.append(path)
    for path in sorted(set(head_protected) - base_set):
        target = tree / path
        if target.exists() or target.is_symlink():
            _remove(target)
            removed.append(path)
    return OverlayResult(tuple(restored), tuple(removed), frozenset(kept))


def _same(target: Path, data: bytes, link: bool) -> bool:
    """The tree already holds the base's entry: a file with the same bytes, or, when the base
    holds a symlink (git stores its target path, which `data` then is), the same link."""
    if link:
        return target.is_symlink() and os.fsencode(os.readlink(target)) == data
    return target.is_file() and not target.is_symlink() and target.read_bytes() == data


def _remove(target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        for root, dirs, files in os.walk(target, topdown=False):
            for name in files:
                os.unlink(os.path.join(root, name))
            for name in dirs:
                os.rmdir(os.path.join(root, name))
        target.rmdir()
    else:
        target.unlink()
