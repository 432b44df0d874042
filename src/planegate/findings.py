"""The records every step returns: a Finding names a rule, a place, and the owner who must act."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from planegate import exitcodes


class Step(str, enum.Enum):
    """The gate's steps in the order they decide the exit code (DESIGN §4)."""

    INVENTORY = "inventory"
    EVIDENCE = "evidence"
    LEDGER = "ledger"
    HUNKS = "hunks"
    PLANES = "planes"

    @property
    def exit_code(self) -> int:
        """The step's entry in the one table of exit codes (planegate.exitcodes)."""
        return exitcodes.named(self.value).code


STEP_ORDER: tuple[Step, ...] = tuple(Step)


class Severity(str, enum.Enum):
    """`error` fails its step; `warning` is for a reviewer; `notice` is diagnostics."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "notice": 2}[self.value]


@dataclass(frozen=True)
class Finding:
    rule: str
    step: Step
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    owner: str = "unowned"
    plane: str | None = None
    nodeid: str | None = None

    @property
    def fails(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def location(self) -> str:
        if self.path is None:
            return "-"
        return f"{self.path}:{self.line}" if self.line else self.path

    def sort_key(self) -> tuple[int, int, str, int, str]:
        return (
            STEP_ORDER.index(self.step),
            self.severity.rank,
            self.path or "",
            self.line or 0,
            self.rule,
        )
