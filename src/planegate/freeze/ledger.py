"""The freeze ledger, as the gate, the sweep and thaw shells and the commands use it.

Each name is defined in the module of its idea: `events` (the records), `validate` (one
event), `fold` (the state after the events), `parse` (reading a ledger), `appendonly` (the
append-only rule), `write` (new events and their evidence) and `check` (the gate's step).
docs/ledger.md is the reference for the format.
"""

from __future__ import annotations

from planegate.freeze.check import check, check_file
from planegate.freeze.events import (
    EventErrors,
    FreezeEvent,
    LedgerEvent,
    RenewEvent,
    ThawEvent,
    thaw_runs_required,
)
from planegate.freeze.fold import FreezeState, replays_due
from planegate.freeze.frozen import frozen_nodeids
from planegate.freeze.parse import parse
from planegate.freeze.write import (
    append_event,
    env_fingerprint,
    evidence_hash,
    new_freeze_event,
    render_event,
    replay_outcome_event,
)

__all__ = [
    "EventErrors",
    "FreezeEvent",
    "FreezeState",
    "LedgerEvent",
    "RenewEvent",
    "ThawEvent",
    "append_event",
    "check",
    "check_file",
    "env_fingerprint",
    "evidence_hash",
    "frozen_nodeids",
    "new_freeze_event",
    "parse",
    "render_event",
    "replay_outcome_event",
    "replays_due",
    "thaw_runs_required",
]
