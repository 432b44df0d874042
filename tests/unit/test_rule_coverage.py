"""Every rule of the findings catalogue (src/planegate/rules/) is named by a test of its own,
outside the tests that check the catalogue and its docs as a whole."""

from __future__ import annotations

import re
from pathlib import Path

from planegate.rules import RULES

TESTS = Path(__file__).resolve().parents[1]
CATALOGUE_TESTS = {"test_docs_drift.py", "test_rule_coverage.py"}


def test_every_rule_id_is_named_in_a_test_file() -> None:
    texts = [
        path.read_text("utf-8")
        for path in TESTS.rglob("test_*.py")
        if path.name not in CATALOGUE_TESTS
    ]
    untested = [
        rule for rule in sorted(RULES) if not any(re.search(rf"\b{rule}\b", t) for t in texts)
    ]
    assert untested == []
