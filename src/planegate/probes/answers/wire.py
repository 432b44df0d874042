"""The answer probes' results (the sampled canaries and the fixture probe add their failures
and records to them) and their form in `run.json`: written by the run phase, checked and read
back by the judge phase (an absent key reads as no probes, so an older run.json still loads)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from planegate.report import ProbeRecord
from planegate.runner.session import Tamper
from planegate.wire import strings as _strings


@dataclass(frozen=True)
class ProbeFailure:
    probe: str
    nodeid: str
    message: str
    repro: str


@dataclass(frozen=True)
class AnswerProbes:
    """The flipped tests, what the probes found on them, and each probe's record."""

    flipped: tuple[str, ...] = ()
    failures: tuple[ProbeFailure, ...] = ()
    unprobed: tuple[tuple[str, str], ...] = ()  # (probe, nodeid) the budget left out
    not_applicable: tuple[tuple[str, str], ...] = ()  # (probe, nodeid) skipped by the probe
    records: tuple[ProbeRecord, ...] = ()
    tampering: tuple[Tamper, ...] = ()  # what the probe runs' audit hooks and streams saw

    @property
    def seconds(self) -> float:
        return sum(record.seconds for record in self.records)


def joined(first: AnswerProbes, then: AnswerProbes) -> AnswerProbes:
    """What one probe found, then what another did (the flipped tests are whichever found
    them: the answer probes)."""
    return AnswerProbes(
        flipped=first.flipped or then.flipped,
        failures=(*first.failures, *then.failures),
        unprobed=(*first.unprobed, *then.unprobed),
        not_applicable=(*first.not_applicable, *then.not_applicable),
        records=(*first.records, *then.records),
        tampering=(*first.tampering, *then.tampering),
    )


def to_dict(answers: AnswerProbes) -> dict[str, Any]:
    return asdict(answers)


def from_dict(data: Any) -> AnswerProbes:
    """Raises KeyError, TypeError or ValueError on a malformed object."""
    if data is None:
        return AnswerProbes()
    if not isinstance(data, dict):
        raise TypeError("answers: expected an object")
    return AnswerProbes(
        flipped=_strings(data["flipped"]),
        failures=tuple(
            ProbeFailure(str(f["probe"]), str(f["nodeid"]), str(f["message"]), str(f["repro"]))
            for f in data["failures"]
        ),
        unprobed=_pairs(data["unprobed"]),
        not_applicable=_pairs(data["not_applicable"]),
        records=tuple(
            ProbeRecord(
                str(r["probe"]),
                str(r["outcome"]),
                float(r["seconds"]),
                int(r["tests"]),
                str(r["detail"]),
            )
            for r in data["records"]
        ),
        tampering=tuple(
            Tamper(str(t["event"]), str(t["path"]), int(t["line"]))
            for t in data.get("tampering") or ()
        ),
    )


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list of pairs")
    return tuple((str(a), str(b)) for a, b in value)
