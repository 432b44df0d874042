"""What the git adapter refuses without running git: tree paths git refuses, writes under a
symlink the tree made, a bogus config count."""

from __future__ import annotations

from pathlib import Path

import pytest

from planegate.errors import PlanegateError
from planegate.repo import export, gitenv


@pytest.mark.parametrize("path", ["../x", "a/../../x", ".git/config", "a/.GIT/hooks", "a//b", ""])
def test_a_tree_path_git_refuses_is_an_error_not_a_write(tmp_path: Path, path: str) -> None:
    with pytest.raises(PlanegateError, match="git refuses"):
        export.write_tree(tmp_path, [export.TreeEntry(path, "file", b"x")])
    assert list(tmp_path.iterdir()) == []


def test_nothing_is_written_under_a_symlink_the_tree_made(tmp_path: Path) -> None:
    target = tmp_path / "tree"
    target.mkdir()
    (tmp_path / "outside").mkdir()
    entries = [
        export.TreeEntry("up", "symlink", str(tmp_path / "outside").encode()),
        export.TreeEntry("up/escape.txt", "file", b"x"),
    ]
    with pytest.raises(PlanegateError, match="under a link"):
        export.write_tree(target, entries)
    assert list((tmp_path / "outside").iterdir()) == []


def test_a_bogus_config_count_is_replaced() -> None:
    merged = gitenv.hardened({"GIT_CONFIG_COUNT": "many"})
    assert merged["GIT_CONFIG_COUNT"] == str(len(gitenv.CONFIG))
    assert merged["GIT_CONFIG_KEY_0"] == "core.hooksPath"
