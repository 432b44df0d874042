"""The folder an exported tree lies in (repo/git.py `worktree`: `tempfile.mkdtemp()` plus
`/tree`) differs on every run: what a run says with a path in it (a skip's reason, a sign's
place) is compared with another run's with that folder taken out."""

from __future__ import annotations

import re

_TREE = re.compile(r"/(?:[^/\s()'\"]+/)*tmp\w{8}/tree(?=[/\s)'\"]|$)")


def without_tree(text: str) -> str:
    """`text` with every exported tree's folder written `<tree>`."""
    return _TREE.sub("<tree>", text)
