"""Generated repositories for the answer probes: main holds a real bug its scoring tests catch;
each branch fixes it honestly or with a trick, and the real CLI gates it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.project import CONFIG, manifest_for
from helpers.repo_helper import TestRepo, run_cli


class Project:
    """A repository whose main is committed and digested; `gate(branch)` runs the CLI."""

    def __init__(self, root: Path, files: dict[str, str | bytes]) -> None:
        files = {"planegate.yml": CONFIG, "pytest.ini": "[pytest]\ntestpaths = tests\n", **files}
        files["tests/fixtures.lock.json"] = manifest_for(files)
        self.repo = TestRepo(root / "project")
        self.repo.commit("main with a bug", files)
        self.digest = root / "digest.json"
        done = run_cli("-C", str(self.repo.root), "digest", "--out", str(self.digest), "-q")
        assert done.returncode == 0, done.stderr

    def branch(self, name: str, files: dict[str, str | bytes]) -> None:
        self.repo.checkout("main")
        self.repo.branch(name)
        self.repo.commit(name, files)

    def gate(self, branch: str, *extra: str, digest: bool = True) -> tuple[int, dict[str, Any]]:
        """The gate's exit code and JSON report (`extra`: more options of the gate); without
        `digest`, the gate looks at the base itself for all it would read from main's run."""
        self.repo.checkout(branch)
        given = ("--digest", str(self.digest)) if digest else ()
        root = str(self.repo.root)
        done = run_cli(
            "-C", root, "gate", "--base", "main", *given, "--format", "json", "-q", *extra
        )
        assert done.stdout, done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        return done.returncode, report


def findings(report: dict[str, Any], rule: str | None = None) -> list[dict[str, Any]]:
    return [
        f
        for step in report["steps"]
        for f in step["findings"]
        if f["severity"] == "error" and (rule is None or f["rule"] == rule)
    ]


def rules(report: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in findings(report)}


def probe(report: dict[str, Any], name: str) -> dict[str, Any]:
    found = [p for p in report["probes"] if p["probe"] == name]
    assert found, f"no {name} probe in {[p['probe'] for p in report['probes']]}"
    first: dict[str, Any] = found[0]
    return first


def assert_caught(report: dict[str, Any], code: int, rule: str, nodeid: str, probe: str) -> None:
    """The trick fails the gate with `rule` on `nodeid`, naming the probe and a repro."""
    assert code != 0, findings(report)
    found = [f for f in findings(report, rule) if f["nodeid"] == nodeid]
    assert found, (rule, nodeid, [(f["rule"], f["message"][:200]) for f in findings(report)])
    assert f"({probe} probe)" in found[0]["message"]
    assert "repro: git checkout " in found[0]["message"]


def assert_honest(report: dict[str, Any], code: int, flipped: int) -> None:
    """An honest fix passes, and the probes ran on the tests it flipped."""
    assert code == 0, [(f["rule"], f["message"][:300]) for f in findings(report)]
    base = probe(report, "base run")
    assert f"{flipped} flipped" in base["detail"]
    assert all(p["outcome"] in ("pass", "not run") for p in report["probes"]), report["probes"]
    assert all(isinstance(p["seconds"], float) for p in report["probes"])
