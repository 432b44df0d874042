"""What the gate process imports before the head's test child starts: its own modules and
what it reads (a configuration, main's digest), never what only the run's end needs (the
judge, the probes' runs and findings, the hunk analysis, the ledger's parser). jsonschema,
which validates the configuration and the digest, is among what it needs.
Those are imported on the thread beside the child (`pipeline.ALONGSIDE`) or where used."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.project import CONFIG
from planegate.gate import pipeline

# modules the gate needs only after the head's run, or only for input that is not valid or
# not there (a ledger, many changed test files)
LATER = (
    "planegate.gate.judge",
    "planegate.freeze.ledger",
    "planegate.freeze.parse",
    "planegate.analysis.hunks.analyze",
    "planegate.analysis.hunks.processes",
    "planegate.probes.answers.run",
    "planegate.probes.answers.findings",
    "planegate.probes.answers.observed",
    "planegate.probes.canaries.run",
    "planegate.probes.honest.run",
    "planegate.probes.fixture.run",
    "planegate.probes.in_code.findings",
)
# what the gate's process does before the head's test child: its imports, reading the
# configuration and main's digest
BEFORE_THE_CHILD = """
import json, sys
import planegate.cli, planegate.commands.gate
from planegate.gate import pipeline
from planegate.config import load
from planegate.repo import digest_format
load.parse({config!r}, "planegate.yml")
digest = digest_format.Digest("a" * 40, {{"tests/test_a.py": "b" * 64}}, {{"property": ("t",)}})
digest_format.from_json(digest_format.to_json(digest), "digest.json")
print(json.dumps(sorted(sys.modules)))
"""


def test_what_only_the_gates_end_needs_is_not_imported_before_the_child() -> None:
    script = BEFORE_THE_CHILD.format(config=CONFIG)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    imported = set(json.loads(out))
    assert "planegate.gate.pipeline" in imported and "planegate.config.load" in imported
    assert sorted(imported.intersection(LATER)) == []


def test_what_the_run_needs_after_the_child_is_imported_beside_it() -> None:
    after_the_run = {name for name in LATER if name.startswith("planegate.probes.")}
    observed = "planegate.probes.answers.observed"  # imported by the answer probes' run
    assert after_the_run - {observed} <= set(pipeline.ALONGSIDE)
    assert "planegate.gate.judge" in pipeline.ALONGSIDE
