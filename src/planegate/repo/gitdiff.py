"""git's NUL-separated `--name-status -z` output, parsed strictly; and its cross-check.

With `-z` git writes every path verbatim (no quoting), so a name holding a newline, a tab, a
leading `:` or `!` is one field like any other. Anything that is not the documented shape (an
unknown status, a missing path, a trailing field) is an error, never a shorter list.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from planegate.errors import ServiceUnavailable

_ONE_PATH = re.compile(rb"[AMDT]")
_TWO_PATHS = re.compile(rb"R[0-9]{1,3}")


@dataclass(frozen=True)
class Change:
    """One path changed between two commits; `status` is git's letter (A, M, D, R, T)."""

    path: str
    status: str
    old_path: str | None = None


def parse_name_status(raw: bytes) -> list[Change]:
    """The changes in `git diff-tree -r -z -M --name-status` output."""
    fields = raw.split(b"\0")
    if fields[-1] != b"":
        raise _unreadable("the output does not end with a NUL")
    fields.pop()
    changes: list[Change] = []
    index = 0
    while index < len(fields):
        status, index = fields[index], index + 1
        count = 1 if _ONE_PATH.fullmatch(status) else 2 if _TWO_PATHS.fullmatch(status) else 0
        if count == 0:
            raise _unreadable(f"unknown status {status[:20]!r} at field {index}")
        paths = fields[index : index + count]
        if len(paths) < count or not all(paths):
            raise _unreadable(f"status {status.decode()} at field {index} has no path")
        index += count
        names = [os.fsdecode(path) for path in paths]
        if count == 1:
            changes.append(Change(names[0], status.decode()))
        else:
            changes.append(Change(names[1], "R", names[0]))
    return changes


def touched(changes: Iterable[Change]) -> set[str]:
    """Every path a list of changes names, the old side of a rename included."""
    found = {change.path for change in changes}
    found.update(change.old_path for change in changes if change.old_path is not None)
    return found


def cross_check(changes: Iterable[Change], walked: set[str]) -> None:
    """Stop unless the parsed diff names exactly the paths the two trees disagree on."""
    named = touched(changes)
    if named == walked:
        return
    missing, extra = sorted(walked - named), sorted(named - walked)
    detail = f"{len(missing)} changed paths left out" if missing else ""
    detail += ("; " if detail else "") + (f"{len(extra)} paths not changed" if extra else "")
    example = (missing or extra)[0]
    raise ServiceUnavailable(
        f"git diff-tree and the trees of the two commits disagree ({detail}, e.g. {example!r})",
        "the gate stops rather than judge a partial diff; check the clone with `git fsck`",
    )


def _unreadable(reason: str) -> ServiceUnavailable:
    return ServiceUnavailable(f"git diff-tree output could not be read: {reason}")
