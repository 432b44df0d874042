"""A person's classification on the head: the rows the head's planegate.yml adds to the
planes' `nodeids`, when adding them is all it does (DESIGN §1, "New tests").

The gate reads its configuration from the base; this is the one exception it makes. Whether
the rows are accepted also depends on who committed them and on what they list (a test file
the patch adds): `steps/new_tests.py` decides that; this module only reads the two files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate.config import load as config_mod
from planegate.config.planemap import PlaneMap
from planegate.errors import ConfigError
from planegate.vocabulary import SCORING_PLANES


@dataclass(frozen=True)
class HeadRows:
    """What the head's configuration does beside the base's: `rows` (plane -> the entries
    it adds to that plane's `nodeids`), or `other` saying what else it changes."""

    rows: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    other: str = ""

    @property
    def entries(self) -> tuple[str, ...]:
        return tuple(entry for entries in self.rows.values() for entry in entries)


def head_rows(base: bytes, head: bytes, path: str) -> HeadRows:
    """The rows `head` adds to `base` (both texts of the configuration at `path`)."""
    try:
        base_doc = config_mod.document(base, path)
        head_doc = config_mod.document(head, path)
    except ConfigError as error:
        return HeadRows(other=f"the head's {path} does not load: {error.message}")
    rows: dict[str, tuple[str, ...]] = {}
    for plane in SCORING_PLANES:
        base_ids, head_ids = _nodeids(base_doc, plane), _nodeids(head_doc, plane)
        known = set(base_ids)
        if [entry for entry in head_ids if entry in known] != base_ids:
            return HeadRows(other=f"it removes or reorders planes.{plane}.nodeids entries")
        added = tuple(dict.fromkeys(entry for entry in head_ids if entry not in known))
        if added:
            rows[plane] = added
    if _without_nodeids(base_doc) != _without_nodeids(head_doc):
        return HeadRows(rows, other="it changes more than the planes' nodeids")
    return HeadRows(rows)


def _section(doc: Any, plane: str) -> dict[str, Any]:
    planes = doc.get("planes") if isinstance(doc, dict) else None
    section = planes.get(plane) if isinstance(planes, dict) else None
    return section if isinstance(section, dict) else {}


def _nodeids(doc: Any, plane: str) -> list[str]:
    return [str(entry) for entry in _section(doc, plane).get("nodeids") or ()]


def _without_nodeids(doc: Any) -> Any:
    """The document with the scoring planes' `nodeids` taken out (an empty section and an
    absent one are the same)."""
    if not isinstance(doc, dict):
        return doc
    planes = dict(doc.get("planes") or {})
    for plane in SCORING_PLANES:
        rest = {k: v for k, v in _section(doc, plane).items() if k != "nodeids"}
        planes[plane] = rest
    return {**doc, "planes": planes}


@dataclass(frozen=True)
class Classification:
    """How the test files the patch adds are classified, worked out from git alone."""

    files: tuple[str, ...] = ()  # test files the patch adds (run apart, never voting)
    admitted: Mapping[str, str] = field(default_factory=dict)  # file -> plane (admit folders)
    rows: HeadRows = field(default_factory=HeadRows)  # what the head's configuration adds
    accepted_by: tuple[str, ...] = ()  # the commits of the person's rows, when accepted
    refused: str = ""  # why the head's rows are not accepted (when it has any)
    plane_map: PlaneMap | None = None  # planes of the added files' nodeids

    @property
    def accepted(self) -> bool:
        return bool(self.accepted_by)

    def plane_of(self, nodeid: str) -> str:
        return "unclassified" if self.plane_map is None else self.plane_map.plane_of(nodeid)
