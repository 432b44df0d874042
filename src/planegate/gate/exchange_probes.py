"""The answer probes' results in `run.json`: written by the run phase, checked and read back
by the judge phase (an absent key reads as no probes, so an older run.json still loads)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from planegate.report import ProbeRecord
from planegate.runner.answer_probes import AnswerProbes, ProbeFailure
from planegate.runner.session import Tamper
from planegate.wire import strings as _strings


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
