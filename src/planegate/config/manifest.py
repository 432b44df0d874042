"""The fixture manifest: sha256 locks on the fixture plane's data files (`planegate lock`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate.errors import InputDataError

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Entry:
    frozen_at: str
    covers: str = ""


@dataclass(frozen=True)
class Manifest:
    files: Mapping[str, str]
    entries: Mapping[str, Entry] = field(default_factory=dict)


@dataclass(frozen=True)
class Mismatch:
    path: str
    kind: str  # changed | missing | unlocked
    expected: str | None
    actual: str | None

    def describe(self) -> str:
        if self.kind == "missing":
            return f"{self.path} is locked by the manifest but does not exist"
        if self.kind == "unlocked":
            return f"{self.path} is a fixture data file with no lock in the manifest"
        return (
            f"{self.path} changed: locked {str(self.expected)[:12]}, found {str(self.actual)[:12]}"
        )


def parse(text: str, source: str) -> Manifest:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputDataError(f"{source}:{error.lineno}: not valid JSON: {error.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        raise InputDataError(
            f"{source}: expected an object with a 'files' mapping",
            "regenerate it with `planegate lock`",
        )
    files = data["files"]
    bad = next((k for k, v in files.items() if not _is_sha256(v)), None)
    if bad is not None:
        raise InputDataError(f"{source}: files[{bad!r}] is not a sha256 hex digest")
    entries = {}
    for path, note in (data.get("entries") or {}).items():
        if not isinstance(note, dict):
            raise InputDataError(f"{source}: entries[{path!r}] must be an object")
        entries[path] = Entry(str(note.get("frozen_at", "")), str(note.get("covers", "")))
    return Manifest(dict(files), entries)


def _is_sha256(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def render(manifest: Manifest) -> str:
    data = {
        "version": MANIFEST_VERSION,
        "files": dict(sorted(manifest.files.items())),
        "entries": {
            path: {"frozen_at": entry.frozen_at, "covers": entry.covers}
            for path, entry in sorted(manifest.entries.items())
        },
    }
    return json.dumps(data, indent=2) + "\n"


def verify(manifest: Manifest, actual: Mapping[str, str | None]) -> list[Mismatch]:
    """`actual` maps every current data file (and every locked path) to its hash or None."""
    found = []
    for path in sorted(set(manifest.files) | set(actual)):
        expected, now = manifest.files.get(path), actual.get(path)
        if expected is None and now is not None:
            found.append(Mismatch(path, "unlocked", None, now))
        elif expected is not None and now is None:
            found.append(Mismatch(path, "missing", expected, None))
        elif expected != now:
            found.append(Mismatch(path, "changed", expected, now))
    return found


def lock(
    previous: Manifest | None,
    actual: Mapping[str, str],
    today: str,
    covers: Mapping[str, str] | None = None,
) -> Manifest:
    """A new manifest; entries whose bytes did not change keep their notes and date."""
    old_files = previous.files if previous else {}
    old_entries = previous.entries if previous else {}
    entries = {}
    for path, sha in actual.items():
        kept = old_entries.get(path)
        note = (covers or {}).get(path, kept.covers if kept else "")
        date = kept.frozen_at if kept and old_files.get(path) == sha else today
        entries[path] = Entry(date, note)
    return Manifest(dict(actual), entries)
