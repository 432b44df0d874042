"""The base's side of the observed signs in `run.json` (signs/compare.py): written by the
run phase, checked and read back by the judge phase. An absent key reads as no base session,
so every sign stays the patch's: an older or truncated run.json never excuses one."""

from __future__ import annotations

from typing import Any

from planegate.signs.compare import MainsSigns
from planegate.wire import codec

# a run.json from before `recorded` reads as signs the base's sessions showed; one from
# before `launches` as a base that started nothing (every start stays the patch's); one from
# before `unseen` as main's count not known (signs/unseen.py: a warning)
OPTIONAL = {MainsSigns: frozenset({"recorded", "launches", "unseen"})}


def to_dict(signs: MainsSigns) -> dict[str, Any]:
    encoded: dict[str, Any] = codec.encode(signs)
    return encoded


def from_dict(data: Any) -> MainsSigns:
    """Raises KeyError, TypeError or ValueError on a malformed object."""
    if data is None:
        return MainsSigns()
    return codec.decode(MainsSigns, data, optional=OPTIONAL)
