"""digest, lock, verify, migrate and init on real repositories through the CLI."""

from __future__ import annotations

import json

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main


def cli(*argv: str) -> int:
    return main([*argv, "-q"])


def test_digest_then_gate_uses_and_names_it(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.root.parent / "digest.json"
    assert cli("-C", str(project.root), "digest", "--out", str(out)) == 0
    digest = json.loads(out.read_text())
    assert digest["commit"] == project.git("rev-parse", "HEAD")
    assert digest["inventory"]["property"] == ["tests/prop/test_add_props.py::test_add_commutes"]
    assert "tests/fix/data/label.txt" in digest["files"]
    assert "calc/core.py" not in digest["files"]
    capsys.readouterr()
    project.branch("fix")
    project.commit("refactor", {"calc/__init__.py": "# package\n"})
    code = cli(
        "-C", str(project.root), "gate", "--base", "main", "--digest", str(out), "--format", "json"
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (
        report["digest_source"]
        == f"digest file {out} (commit {digest['commit'][:12]}); matches git at the base tip"
    )


def test_tampered_digest_is_bad_input_65(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.root.parent / "digest.json"
    assert cli("-C", str(project.root), "digest", "--out", str(out)) == 0
    data = json.loads(out.read_text())
    data["files"]["planegate.yml"] = "0" * 64
    out.write_text(json.dumps(data))
    assert cli("-C", str(project.root), "gate", "--base", "main", "--digest", str(out)) == 65
    assert "root hash does not match its files" in capsys.readouterr().err


def test_digest_that_disagrees_with_git_fails_evidence(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.root.parent / "digest.json"
    assert cli("-C", str(project.root), "digest", "--out", str(out)) == 0
    data = json.loads(out.read_text())
    data["files"]["tests/fix/data/label.txt"] = "1" * 64
    from planegate.repo.digest_format import root_hash

    data["root"] = root_hash(data["files"])
    out.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli(
        "-C", str(project.root), "gate", "--base", "main", "--digest", str(out), "--format", "json"
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 3
    (finding,) = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG303"]
    assert finding["path"] == "tests/fix/data/label.txt"
    assert "recomputed at the base tip" in report["digest_source"]


def test_malformed_digest_json_names_the_line(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = project.root.parent / "digest.json"
    bad.write_text('{\n  "schema_version": 1,\n  "commit": \n}')
    assert cli("-C", str(project.root), "gate", "--base", "main", "--digest", str(bad)) == 65
    assert capsys.readouterr().err.strip() == f"planegate: {bad}:4: not valid JSON: Expecting value"


def test_verify_and_lock(project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(project.root)
    assert cli("-C", root, "verify") == 0
    (project.root / "tests/fix/data/label.txt").write_text("n=4")
    (project.root / "tests/fix/data/new.txt").write_text("new")
    project.git("add", "tests/fix/data/new.txt")  # only files git tracks are data
    capsys.readouterr()
    assert cli("-C", root, "verify") == 3
    out = capsys.readouterr().out
    assert "tests/fix/data/label.txt changed: locked" in out
    assert "tests/fix/data/new.txt is a fixture data file with no lock in the manifest" in out
    assert cli("-C", root, "lock", "--covers", "tests/fix/data/new.txt=the new case") == 0
    assert cli("-C", root, "verify") == 0
    manifest = json.loads((project.root / "tests/fixtures.lock.json").read_text())
    assert manifest["entries"]["tests/fix/data/new.txt"]["covers"] == "the new case"


def test_verify_on_malformed_manifest_exits_65(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    (project.root / "tests/fixtures.lock.json").write_text('{"files": {"a": "nothex"}}')
    assert cli("-C", str(project.root), "verify") == 65
    assert "files['a'] is not a sha256 hex digest" in capsys.readouterr().err
