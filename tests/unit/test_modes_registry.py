"""The action's modes: one registry entry per `mode` input value, each with both phases."""

from __future__ import annotations

from pathlib import Path

import pytest

from planegate.errors import UsageError
from planegate.github.event_payload import Event
from planegate.github.inputs import MODE_NAMES, ActionInputs, Job, RunnerEnv
from planegate.modes.registry import MODES
from planegate.progress import QUIET


def test_every_mode_input_has_a_registry_entry_under_its_own_name() -> None:
    assert tuple(MODES) == MODE_NAMES
    assert all(mode.name == name for name, mode in MODES.items())


def test_only_the_gate_fetches_main_digest_and_only_report_reads_a_report() -> None:
    assert [name for name, mode in MODES.items() if mode.uses_main_digest] == ["gate"]
    assert [name for name, mode in MODES.items() if not mode.writes_report] == ["report"]
    assert [name for name, mode in MODES.items() if mode.posts_verdict] == ["gate", "report"]


def test_report_mode_has_no_run_phase(tmp_path: Path) -> None:
    event = Event("push", "octo/demo", None, None, "a" * 40)
    job = Job(ActionInputs(mode="report"), RunnerEnv(event), None)
    with pytest.raises(UsageError, match="has no run phase"):
        MODES["report"].run(job, tmp_path, {}, QUIET)
