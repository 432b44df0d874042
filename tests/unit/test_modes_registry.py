"""The action's modes: one registry entry per `mode` input value, each with both phases."""

from __future__ import annotations

from pathlib import Path

import pytest

from planegate.errors import UsageError
from planegate.github.event_payload import Event
from planegate.github.inputs import MODE_NAMES, SHARD_MODE, ActionInputs, Job, RunnerEnv
from planegate.modes.registry import MODES
from planegate.progress import QUIET
from planegate.shards.slicing import Shard


def test_every_mode_input_has_a_registry_entry_under_its_own_name() -> None:
    # and the shard mode, which a `gate` job with a `shard` input runs
    assert sorted(MODES) == sorted([*MODE_NAMES, SHARD_MODE])
    assert all(mode.name == name for name, mode in MODES.items())
    shard = ActionInputs(mode="gate", shard=Shard(2, 4))
    assert (shard.mode_key, ActionInputs(mode="gate").mode_key) == ("shard", "gate")


def test_which_modes_fetch_main_digest_read_a_report_and_post() -> None:
    digest_users = [name for name, mode in MODES.items() if mode.uses_main_digest]
    assert sorted(digest_users) == ["gate", "merge", "shard"]
    assert [name for name, mode in MODES.items() if not mode.writes_report] == ["report"]
    posting = [name for name, mode in MODES.items() if mode.posts_verdict]
    assert sorted(posting) == ["gate", "merge", "report"]  # a shard's verdict is the merge's


@pytest.mark.parametrize("name", ["report", "merge"])
def test_report_and_merge_have_no_run_phase(tmp_path: Path, name: str) -> None:
    event = Event("push", "octo/demo", None, None, "a" * 40)
    job = Job(ActionInputs(mode=name), RunnerEnv(event), None)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="has no run phase"):
        MODES[name].run(job, tmp_path, {}, QUIET)
