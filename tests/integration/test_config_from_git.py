"""The configuration read from a commit by the real CLI: the base's, never the head's; a
malformed one exits 78 without a traceback."""

from __future__ import annotations

from helpers.repo_helper import TestRepo, run_cli


def test_gate_on_malformed_config_exits_78_without_traceback(project: TestRepo) -> None:
    project.commit(
        "break config",
        {"planegate.yml": "version: 1\nplanes:\n  property: {pathz: []}\n  fixture: {}\n"},
    )
    project.branch("patch")
    done = run_cli("gate", "--base", "main", "-q", cwd=project.root)
    assert done.returncode == 78
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "planegate: planegate.yml:3 planes.property.pathz: unknown key 'pathz'; did you mean "
        "'paths'? (see docs/configuration.md)"
    )


def test_config_is_read_from_the_base_not_the_head(project: TestRepo) -> None:
    project.branch("patch")
    project.commit("break config on head", {"planegate.yml": "not: [valid"})
    done = run_cli("gate", "--base", "main", "-q", "--format", "json", cwd=project.root)
    assert done.returncode == 3  # the head's edit is an evidence violation, not a config error
    assert '"rule": "PG301"' in done.stdout
