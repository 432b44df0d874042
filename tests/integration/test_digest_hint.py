"""A gate without main's digest runs main's tests on the base as well: it says so once, on
stderr, with what saves that run; quiet, or given a digest, it says nothing of the kind."""

from __future__ import annotations

import pytest

from helpers.repo_helper import TestRepo, run_cli
from planegate.gate.pipeline import NO_DIGEST


@pytest.mark.parametrize("quiet", [False, True])
def test_a_gate_without_a_digest_names_the_command_that_saves_the_base_s_run_once(
    project: TestRepo, quiet: bool
) -> None:
    project.branch("fix")
    project.commit("refactor", {"calc/__init__.py": "# package\n"})
    argv = ["-C", str(project.root), "gate", "--base", "main", *(["-q"] if quiet else [])]
    done = run_cli(*argv)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if NO_DIGEST in line]
    assert lines == ([] if quiet else [f"planegate: digest: {NO_DIGEST}"])
    assert "`planegate digest` on main" in NO_DIGEST


def test_a_gate_given_main_s_digest_says_nothing_of_it(project: TestRepo) -> None:
    out = project.root.parent / "digest.json"
    assert run_cli("-C", str(project.root), "digest", "--out", str(out), "-q").returncode == 0
    project.branch("fix")
    project.commit("refactor", {"calc/__init__.py": "# package\n"})
    done = run_cli("-C", str(project.root), "gate", "--base", "main", "--digest", str(out))
    assert done.returncode == 0, done.stderr
    assert "planegate: inventory" in done.stderr  # not quiet: the other steps are told
    assert NO_DIGEST not in done.stderr
