"""Where findings go: the file, its plane and owner, and how a Finding is spelled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from planegate.findings import Finding, Severity, Step


@dataclass(frozen=True, slots=True)
class Context:
    path: str
    owner: str
    plane: str | None
    fixture_plane: bool
    async_plugin: bool
    conftest: bool

    def finding(
        self,
        rule: str,
        line: int | None,
        message: str,
        *,
        test: str | None = None,
        severity: Severity = Severity.ERROR,
    ) -> Finding:
        """`test` is the qualified name of a collected test, which gives the nodeid."""
        return Finding(
            rule=rule,
            step=Step.HUNKS,
            severity=severity,
            message=message,
            path=self.path,
            line=line,
            owner=self.owner,
            plane=self.plane,
            nodeid=f"{self.path}::{test}" if test else None,
        )


class Scope(NamedTuple):
    """What a comparison is about: the label its messages start with and, when it is a
    collected test, its qualified name (which gives each finding its nodeid)."""

    ctx: Context
    label: str
    test: str | None = None

    def finding(
        self, rule: str, line: int | None, message: str, *, severity: Severity = Severity.ERROR
    ) -> Finding:
        return self.ctx.finding(rule, line, message, test=self.test, severity=severity)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def fmt(value: float) -> str:
    return f"{value:g}"
