"""A real JavaScript suite: node's own test runner (`node --test`, node v20 or later; the
Makefile's `node` target installs it) writes JUnit XML, `runner: junit` gates it, and frozen
tests are deselected through node's `--test-name-pattern` (`junit.filter: node`). The table:
honest 0, bug 1, an added skip 5 (`{ skip: true }`, `it.skip(`), golden rewritten 3, a new
unclassified test 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.junit_suite import freeze_line
from helpers.repo_helper import TestRepo, run_cli
from planegate.gate.junit_gate import FROM_MAIN

CONFIG = """\
version: 1
owner: "@org/plane-map"
runner: junit
junit:
  command: >-
    mkdir -p out && node --test --test-reporter=junit --test-reporter-destination=out/junit.xml
    {deselect} test/
  xml: ["out/junit.xml"]
  id: "{suite}::{name}"   # the describe block and the test's name
  filter: node
planes:
  property:
    owner: "@org/props"
    nodeids: ["props::add_commutes", "props::add_zero"]
  fixture:
    owner: "@org/goldens"
    nodeids: ["golden::golden_table"]
    data: ["data/"]
  freeze:
    owner: "@org/flakes"
    max_fraction: 0.5
protected: ["test/props.test.js", "test/golden.test.js"]  # the frozen test's file is not
"""

CALC = "exports.add = (a, b) => a + b;\n"
BUG = "exports.add = (a, b) => a + b + (a > 5 ? 1 : 0);\n"

PROPS = """\
const { describe, it } = require('node:test');
const assert = require('node:assert');
const { add } = require('../src/calc.js');

function inputs(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state % 199) - 99;
  };
}

describe('props', () => {
  it('add_commutes', () => {
    const next = inputs(0x5EED);
    for (let i = 0; i < 500; i++) {
      const a = next(), b = next();
      assert.strictEqual(add(a, b), add(b, a));
    }
  });
  it('add_zero', () => {
    for (let a = -50; a < 50; a++) {
      assert.strictEqual(add(a, 0), a);
    }
  });
});
"""

GOLDEN = """\
const { describe, it } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { add } = require('../src/calc.js');

describe('golden', () => {
  it('golden_table', () => {
    for (const line of fs.readFileSync('data/golden.txt', 'utf8').trim().split('\\n')) {
      const [a, b, want] = line.split(' ').map(Number);
      assert.strictEqual(add(a, b), want, line);
    }
  });
});
"""

TIMING = """\
const { describe, it } = require('node:test');
const assert = require('node:assert');

describe('timing', () => {
  it('slow_clock', () => {
    assert.fail('timed out waiting for the clock');
  });
});
"""

EXTRA = """\
const { describe, it } = require('node:test');
const assert = require('node:assert');
const { add } = require('../src/calc.js');

describe('extra', () => {
  it('add_one', () => {
    assert.strictEqual(add(1, 1), 2);
  });
});
"""

FROZEN = "timing::slow_clock"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    """The project on main: node:test suite, golden data locked, the clock test frozen."""
    assert shutil.which("node"), "node is missing: `make node` installs it"
    root = tmp_path_factory.mktemp("node") / "main"
    repo = TestRepo(root)
    repo.write(
        {
            "planegate.yml": CONFIG,
            "src/calc.js": CALC,
            "test/props.test.js": PROPS,
            "test/golden.test.js": GOLDEN,
            "test/timing.test.js": TIMING,
            "data/golden.txt": "1 2 3\n-4 4 0\n10 -3 7\n",
            ".gitignore": "out/\n",
        }
    )
    first = repo.commit("calc and its node:test suite")
    locked = run_cli("-C", str(root), "lock", "--no-trace")
    assert locked.returncode == 0, locked.stderr
    repo.commit("lock, freeze", {"freeze_ledger.jsonl": freeze_line(first, FROZEN) + "\n"})
    return repo


@pytest.fixture
def project(built: TestRepo, tmp_path: Path) -> TestRepo:
    repo = built.copy(tmp_path / "project")
    repo.branch("patch")
    return repo


def gate(repo: TestRepo, *extra: str) -> tuple[int, dict[str, Any]]:
    done = run_cli("-C", str(repo.root), "gate", "--base", "main", "--format", "json", *extra)
    return done.returncode, json.loads(done.stdout)


def rules(report: dict[str, Any]) -> set[str]:
    return {f["rule"] for step in report["steps"] for f in step["findings"]}


def planes_notes(report: dict[str, Any]) -> list[str]:
    notes: list[str] = next(s for s in report["steps"] if s["step"] == "planes")["notes"]
    return notes


def test_honest_patch_passes_with_the_frozen_test_deselected_by_node(project: TestRepo) -> None:
    project.commit("a comment", {"src/calc.js": "// adds\n" + CALC})
    code, report = gate(project)
    assert code == 0, report
    assert report["trust"].startswith("trust: runner junit")
    assert "frozen tests deselected with the node filter" in planes_notes(report)
    assert not any("ran though the node filter" in note for note in planes_notes(report))
    assert report["shadow"] == [{"nodeid": FROZEN, "outcome": "failed", "owner": "@org/flakes"}]


def test_a_bug_is_a_regression(project: TestRepo) -> None:
    project.commit("faster add", {"src/calc.js": BUG})
    code, report = gate(project)
    assert code == 1
    failed = {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}
    assert failed == {"props::add_commutes", "props::add_zero", "golden::golden_table"}


def test_a_skip_option_a_person_adds_to_a_property_test_stops_the_gate(
    project: TestRepo,
) -> None:
    """A person's patch to protected evidence is reviewed, not blocked as evidence (PG304, a
    warning); the skip it adds still stops the gate."""
    skipped = PROPS.replace("  it('add_zero', () => {", "  it('add_zero', { skip: true }, () => {")
    assert skipped != PROPS
    project.commit("a bug, and a skip", {"src/calc.js": BUG, "test/props.test.js": skipped})
    code, report = gate(project, "--human")
    assert code == 5, sorted(rules(report))
    assert {"PG527", "PG304"} <= rules(report)


def test_a_skip_added_to_the_frozen_test_stops_the_gate(project: TestRepo) -> None:
    skipped = TIMING.replace("  it('slow_clock',", "  it.skip('slow_clock',")
    assert skipped != TIMING
    project.commit("skip the clock test", {"test/timing.test.js": skipped})
    code, report = gate(project)
    assert code == 5, sorted(rules(report))
    assert rules(report) == {"PG527"}


def test_a_rewritten_golden_file_fails_the_evidence_step(project: TestRepo) -> None:
    project.commit(
        "new goldens", {"data/golden.txt": "1 2 3\n-4 4 0\n10 -3 8\n", "src/calc.js": BUG}
    )
    code, report = gate(project)
    assert code == 3
    assert {"PG301", "PG302"} <= rules(report)


def test_a_new_test_the_map_does_not_classify_stops_the_gate(project: TestRepo) -> None:
    project.commit("a new test", {"test/extra.test.js": EXTRA})
    code, report = gate(project)
    assert code == 2
    inventory = next(s for s in report["steps"] if s["step"] == "inventory")
    assert any("extra::add_one" in f["message"] for f in inventory["findings"])


def test_main_s_digest_of_the_node_suite_spares_the_gate_the_base_run(project: TestRepo) -> None:
    out = project.root.parent / "digest.json"
    done = run_cli("-C", str(project.root), "digest", "--commit", "main", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["inventory"]["freeze"] == [FROZEN]
    assert data["run"]["not_passed"] == {}
    project.commit("faster add", {"src/calc.js": BUG})
    code, report = gate(project, "--digest", str(out))
    assert code == 1
    assert FROM_MAIN in planes_notes(report)


def test_a_weakened_protected_test_is_restored_before_node_runs_it(project: TestRepo) -> None:
    """The attack: a bug, and the property test's assertion turned into a no-op so that the
    patch's tree passes. The overlay puts main's test back before `node --test` runs."""
    weakened = PROPS.replace(
        "      assert.strictEqual(add(a, b), add(b, a));", "      void add(a, b);"
    )
    assert weakened != PROPS
    project.commit("faster add, lighter test", {"src/calc.js": BUG, "test/props.test.js": weakened})
    code, report = gate(project)
    assert code == 3  # a protected test changed
    assert {"PG301", "PG101"} <= rules(report)
    failed = {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}
    assert "props::add_commutes" in failed  # main's assertion ran against the bug
    assert any("restored 1 protected files" in note for note in planes_notes(report))
