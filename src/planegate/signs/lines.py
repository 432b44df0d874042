"""Whether a line of the tree that ran is main's own: the same text on the base's tip and not
in a hunk the patch adds or changes (difflib over the two versions of the file)."""

from __future__ import annotations

import difflib
from collections.abc import Callable


def patch_lines(base: str | None, head: str | None) -> frozenset[int]:
    """1-based numbers of the head's lines the patch added or changed; every line when the
    base has no such file."""
    if head is None:
        return frozenset()
    new = head.splitlines()
    if base is None:
        return frozenset(range(1, len(new) + 1))
    matcher = difflib.SequenceMatcher(None, base.splitlines(), new, autojunk=False)
    changed: set[int] = set()
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(start + 1, end + 1))
    return frozenset(changed)


class MainsLines:
    """`is_mains(path, line)`, each file diffed once."""

    def __init__(self, base: Callable[[str], str | None], head: Callable[[str], str | None]):
        self._base, self._head = base, head
        self._changed: dict[str, frozenset[int] | None] = {}

    def is_mains(self, path: str, line: int) -> bool:
        if path not in self._changed:
            head = self._head(path)
            self._changed[path] = None if head is None else patch_lines(self._base(path), head)
        changed = self._changed[path]
        return changed is not None and line > 0 and line not in changed
