"""A suite pytest does not run: a small script checks a `calc.add` and writes JUnit XML
(`runner: junit`), with a frozen seed property test, a golden file and a noisy test the ledger
freezes. Fast enough for most of the junit path's tests; real CMake projects are in
tests/e2e/test_junit_ctest.py."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.repo_helper import TestRepo, run_cli
from planegate.freeze.events import thaw_runs_required
from planegate.freeze.write import evidence_hash

SUITE = '''\
"""The suite: each case a function, its outcome a testcase in out/junit.xml."""
import random
import re
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

sys.path.insert(0, "src")
from calc import add  # noqa: E402

EXCLUDE = re.compile(sys.argv[2]) if sys.argv[1:2] == ["-E"] else None


def add_commutes():
    rng = random.Random(0x5EED)
    for _ in range(500):
        a, b = rng.randint(-99, 99), rng.randint(-99, 99)
        assert add(a, b) == add(b, a), (a, b)


def add_zero():
    for a in range(-50, 50):
        assert add(a, 0) == a, a


def golden_table():
    for line in Path("data/golden.txt").read_text().splitlines():
        a, b, want = line.split()
        assert add(int(a), int(b)) == int(want), line


def slow_clock():
    assert False, "timed out waiting for the clock"


CASES = [
    ("props", add_commutes),
    ("props", add_zero),
    ("golden", golden_table),
    ("timing", slow_clock),
]
for extra in sorted(Path("tests/more").glob("*.py")):  # cases a patch may add
    space = {}
    exec(extra.read_text(), space)
    CASES += [(extra.stem, fn) for key, fn in space.items() if key.startswith("case_")]
rows = []
for classname, fn in CASES:
    name = fn.__name__
    if EXCLUDE is not None and EXCLUDE.search(name):
        continue
    try:
        fn()
        body = ""
    except AssertionError as exc:
        body = "<failure message=%s/>" % quoteattr(str(exc) or "assertion failed")
    rows.append("<testcase classname=%s name=%s>%s</testcase>"
                % (quoteattr(classname), quoteattr(name), body))
Path("out").mkdir(exist_ok=True)
Path("out/junit.xml").write_text(
    "<testsuites><testsuite name='calc'>" + "".join(rows) + "</testsuite></testsuites>"
)
'''

CONFIG = """\
version: 1
owner: "@org/plane-map"
runner: junit
junit:
  command: "python3 tests/run_suite.py {deselect}"
  xml: ["out/*.xml"]
  filter: ctest
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
protected: ["tests/run_suite.py"]
"""

CALC = "def add(a, b):\n    return a + b\n"
FROZEN = "timing::slow_clock"


def freeze_line(base_commit: str, nodeid: str = FROZEN) -> str:
    return json.dumps(
        {
            "event": "freeze",
            "nodeid": nodeid,
            "flake_class": "timing",
            "class_confidence": 0.7,
            "owner": "@org/flakes",
            "note": "waits on the wall clock",
            "frozen_at": "2026-11-01",
            "base_commit": base_commit,
            "env_fingerprint": {"runner": "junit"},
            "runs": 3,
            "failures": 1,
            "mode": "scoring",
            "failure_signature": "AssertionError",
            "evidence_hash": evidence_hash(nodeid.encode()),
            "test_source_hash": evidence_hash(b"source"),
            "thaw_runs_required": thaw_runs_required(3, 1),
        },
        sort_keys=True,
    )


def build(root: Path, config: str = CONFIG) -> TestRepo:
    """The project on main: suite, golden data locked in the manifest, the noisy test frozen."""
    repo = TestRepo(root)
    repo.write(
        {
            "planegate.yml": config,
            "src/calc.py": CALC,
            "tests/run_suite.py": SUITE,
            "data/golden.txt": "1 2 3\n-4 4 0\n10 -3 7\n",
            ".gitignore": "out/\n",
        }
    )
    first = repo.commit("calc and its suite")
    locked = run_cli("-C", str(root), "lock", "--no-trace")
    assert locked.returncode == 0, locked.stderr
    repo.commit("lock, freeze", {"freeze_ledger.jsonl": freeze_line(first) + "\n"})
    return repo
