"""Every mode of the action, by the name the `mode` input gives."""

from __future__ import annotations

from planegate.modes.base import Mode
from planegate.modes.digest import DIGEST
from planegate.modes.gate import GATE
from planegate.modes.merge import MERGE
from planegate.modes.report import REPORT
from planegate.modes.sharded import SHARD
from planegate.modes.sweep import SWEEP

MODES: dict[str, Mode] = {mode.name: mode for mode in (GATE, DIGEST, SWEEP, REPORT, SHARD, MERGE)}
