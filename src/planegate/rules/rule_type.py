"""One rule of the findings catalogue: its stable id, its step, and who may fix it."""

from __future__ import annotations

from dataclasses import dataclass

from planegate.findings import Step


@dataclass(frozen=True)
class Rule:
    id: str
    step: Step
    title: str
    why: str
    how_to_fix: str
    agent_may_fix: bool = False
