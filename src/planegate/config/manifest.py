"""The fixture manifest: sha256 locks on the fixture plane's data files (`planegate lock`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from planegate import wire

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


def parse(text: str | bytes, source: str) -> Manifest:
    """A manifest's locks; bad bytes, JSON or shape raise InputDataError (exit 65)."""
    data = wire.MANIFEST.load(text, source)
    entries = {
        path: Entry(note.get("frozen_at", ""), note.get("covers", ""))
        for path, note in (data.get("entries") or {}).items()
    }
    return Manifest(dict(data["files"]), entries)


def render(manifest: Manifest) -> str:
    data = {
        "version": MANIFEST_VERSION,
        "files": dict(sorted(manifest.files.items())),
        "entries": {
            path: {"frozen_at": entry.frozen_at, "covers": entry.covers}
            for path, entry in sorted(manifest.entries.items())
        },
    }
    return wire.MANIFEST.dump(data)


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
