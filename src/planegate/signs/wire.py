"""The base's side of the observed signs in `run.json` (signs/compare.py): written by the
run phase, checked and read back by the judge phase. An absent key reads as no base session,
so every sign stays the patch's: an older or truncated run.json never excuses one."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from planegate.runner.session import Tamper
from planegate.signs.compare import MainsSigns
from planegate.wire import strings


def to_dict(signs: MainsSigns) -> dict[str, Any]:
    return asdict(signs)


def from_dict(data: Any) -> MainsSigns:
    """Raises KeyError, TypeError or ValueError on a malformed object."""
    if data is None:
        return MainsSigns()
    if not isinstance(data, dict):
        raise TypeError("mains_signs: expected an object")
    reads = data["prod_reads"]
    if not isinstance(reads, dict):
        raise TypeError("mains_signs.prod_reads: expected an object")
    traced = data["traced"]
    if not isinstance(traced, bool):
        raise TypeError("mains_signs.traced: expected a boolean")
    return MainsSigns(
        survivors=strings(data["survivors"]),
        caught=strings(data["caught"]),
        prod_reads={str(key): strings(paths) for key, paths in reads.items()},
        harness=tuple(
            Tamper(str(t["event"]), str(t["path"]), int(t["line"])) for t in data["harness"]
        ),
        traced=traced,
        problems=strings(data["problems"]),
        recorded=data.get("recorded") is True,
    )
