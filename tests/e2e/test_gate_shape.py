"""The gate's parts on a real repository: the context read from git once, main's digest
passed in memory and named by where it came from."""

from __future__ import annotations

import pytest

from helpers.repo_helper import TestRepo
from planegate.errors import InputDataError
from planegate.gate import context, pipeline
from planegate.gate.context import DigestInput, GateOptions
from planegate.gate.digest_check import build_digest, check_digest
from planegate.repo.digest_format import to_json
from planegate.repo.git import GitRepo


def test_a_digest_in_memory_is_used_and_named_by_its_origin(project: TestRepo) -> None:
    main_sha = project.git("rev-parse", "HEAD")
    text = to_json(build_digest(GitRepo(project.root), main_sha, None))
    project.branch("fix")
    project.commit("refactor", {"calc/__init__.py": "# package\n"})
    given = DigestInput(text, "planegate-digest.json", "artifact planegate-digest of run 7")
    report = pipeline.run(GateOptions(root=project.root, base="main", head="fix", digest=given))
    assert report.exit_code == 0
    assert report.digest_source == (
        f"artifact planegate-digest of run 7 (commit {main_sha[:12]}); matches git at the base tip"
    )


def test_a_broken_digest_in_memory_names_its_source(project: TestRepo) -> None:
    project.branch("fix")
    project.commit("refactor", {"calc/__init__.py": "# package\n"})
    given = DigestInput("{\n  nope", "artifact planegate-digest", "artifact planegate-digest")
    ctx = context.build(GateOptions(root=project.root, base="main", head="fix", digest=given))
    with pytest.raises(InputDataError, match=r"^artifact planegate-digest:2: not valid JSON"):
        check_digest(ctx)


def test_the_context_takes_its_facts_from_git_once(project: TestRepo) -> None:
    project.branch("fix")
    project.commit("new data", {"tests/fix/data/other.txt": "x", "calc/core.py": "# gone\n"})
    ctx = context.build(GateOptions(root=project.root, base="main", head="fix"))
    project.commit("later", {"calc/core.py": "# later\n"})  # the branch moves on; ctx does not
    assert [(c.path, c.status) for c in ctx.changes] == [
        ("calc/core.py", "M"),
        ("tests/fix/data/other.txt", "A"),
    ]
    assert ctx.changes is ctx.changes
    assert ctx.base_ini == {"testpaths": "tests"}
    assert ctx.base_ini is ctx.base_ini
    assert ctx.ledger_base is None and ctx.ledger_head is None
    assert ctx.commits.merge_base == project.git("rev-parse", "main")
    assert ctx.with_agent(False).agent is False and ctx.agent is True
