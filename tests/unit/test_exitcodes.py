"""One table of exit codes: every gate step's code is read from it."""

from __future__ import annotations

import pytest

from planegate import exitcodes
from planegate.findings import STEP_ORDER, Step


def test_each_gate_step_exits_with_its_own_entry_of_the_table() -> None:
    for step in Step:
        entry = exitcodes.named(step.value)
        assert step.exit_code == entry.code
        assert exitcodes.describe(entry.code) == entry
    assert [step.exit_code for step in STEP_ORDER] == [2, 3, 4, 5, 1]


def test_an_unknown_name_is_an_error() -> None:
    with pytest.raises(KeyError, match="no exit code is named 'flaky'"):
        exitcodes.named("flaky")
