"""The child's site and user, decided before any child starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planegate.errors import ServiceUnavailable, UsageError
from planegate.runner import contain
from planegate.runner import env as child_env


def test_the_two_variables_are_read_strictly_and_never_reach_the_child() -> None:
    parent = {"PLANEGATE_PROJECT_SITE": "/a:/b::/a", "PLANEGATE_CHILD_USER": "10002:10003"}
    assert child_env.project_site(parent) == ("/a", "/b")
    assert child_env.child_user(parent) == (10002, 10003)
    assert child_env.child_user({}) is None
    minimal = child_env.minimal(parent, "/home", allow=tuple(parent))
    assert not set(parent) & set(minimal)
    with pytest.raises(UsageError):
        child_env.project_site({"PLANEGATE_PROJECT_SITE": "relative/site"})
    for bad in ("0:0", "10002", "x:1", "10002:0"):
        with pytest.raises(UsageError):
            child_env.child_user({"PLANEGATE_CHILD_USER": bad})


def test_a_child_user_this_process_cannot_switch_to_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(contain, "effective_capabilities", lambda: 0)
    with pytest.raises(ServiceUnavailable) as raised:
        contain.plan_launch(tmp_path, tmp_path, (10002, 10002))
    assert "PLANEGATE_CHILD_USER" in raised.value.message


def test_a_child_user_is_started_through_setpriv_with_every_capability_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = next(p for p in contain.SETPRIV if os.access(p, os.X_OK))  # util-linux
    monkeypatch.setattr(contain, "effective_capabilities", lambda: 0x1E0)  # kill ... setpcap
    tree, scratch = tmp_path / "tree", tmp_path / "scratch"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("x = 1\n")
    scratch.mkdir()
    how = contain.plan_launch(tree, scratch, (10002, 10003))
    assert how.prefix == (
        program,
        "--reuid=10002",
        "--regid=10003",
        "--clear-groups",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    )
    assert how.user is None and how.umask == 0 and not how.drop_caps
    assert (tree / "pkg").stat().st_mode & 0o777 == 0o777
    assert (tree / "pkg" / "mod.py").stat().st_mode & 0o666 == 0o666
