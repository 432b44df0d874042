"""The production-code scan's false alarms on real history: the diff between consecutive releases
of real projects, each one honest patch, reviewed as the hunks step reviews a pull request.

For each project the bench reads its sdists from the cache (`.bench-cache/history/`), and for
every pair of consecutive releases runs `analysis/prodscan.scan_change` (the PG55x rules and
the reach review, PG590-PG595) on each Python file the newer release changed or added that is
not a test file and lies outside the test folders (what the hunks step scans on a pull request
whose plane patterns name `tests/`). The project's own packages are the older release's. It
prints, per release pair, every error and the warnings' count, and at the end the number of
honest patches that would have stopped (docs/performance.md, "Reach review on real history").

    python bench/reach_history.py --fetch   # the sdists of the releases below, into the cache
    python bench/reach_history.py [--only attrs] [--json]
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

from planegate.analysis import prodscan, reach
from planegate.analysis.hunks import is_test_file
from planegate.findings import Finding, Severity
from planegate.steps.hunks import own_packages

CACHE = Path(__file__).resolve().parent.parent / ".bench-cache" / "history"
TEST_FOLDERS = frozenset({"tests", "test", "testing", "t"})
RELEASES: dict[str, tuple[str, ...]] = {  # newest first, as the index lists them
    "attrs": (
        "26.1.0", "25.4.0", "25.3.0", "25.2.0", "25.1.0", "24.3.0", "24.2.0", "24.1.0",
        "23.2.0", "23.1.0", "22.2.0", "22.1.0", "21.4.0", "21.3.0",
    ),
    "packaging": (
        "26.4", "26.3", "26.2", "26.1", "26.0", "25.0", "24.2", "24.1", "24.0", "23.2",
        "23.1", "23.0", "22.0", "21.3",
    ),
    "jsonschema": (
        "4.26.0", "4.25.1", "4.25.0", "4.24.1", "4.24.0", "4.23.0", "4.22.0", "4.21.1",
        "4.21.0", "4.20.0", "4.19.2", "4.19.1", "4.19.0", "4.18.6", "4.18.5", "4.18.4",
        "4.18.3", "4.18.2",
    ),
    "markdown-it-py": (
        "4.3.0", "4.2.0", "4.1.0", "4.0.0", "3.0.0", "2.2.0", "2.1.0", "2.0.1", "2.0.0",
        "1.1.0", "1.0.0",
    ),
}  # fmt: skip


def fetch(projects: list[str]) -> int:
    CACHE.mkdir(parents=True, exist_ok=True)
    for name in projects:
        for version in RELEASES[name]:
            if _sdist(name, version) is None:
                command = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:"]
                command += ["--no-deps", f"{name}=={version}", "-d", str(CACHE)]
                subprocess.run(command, check=True)
    return 0


def _sdist(name: str, version: str) -> Path | None:
    for stem in {name, name.replace("-", "_")}:
        path = CACHE / f"{stem}-{version}.tar.gz"
        if path.is_file():
            return path
    return None


def sources(path: Path) -> dict[str, str]:
    """The Python files of an sdist, by their path inside the project."""
    found = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/", 1)
            if member.isfile() and len(parts) == 2 and parts[1].endswith(".py"):
                data = archive.extractfile(member)
                if data is not None:
                    found[parts[1]] = data.read().decode("utf-8", "replace")
    return found


def scanned(path: str) -> bool:
    folders = path.split("/")[:-1]
    return not is_test_file(path) and not TEST_FOLDERS & set(folders)


def review_pair(old: dict[str, str], new: dict[str, str]) -> list[Finding]:
    own = own_packages(old)
    renamed = renames(old, new)
    findings: list[Finding] = []
    for path, text in sorted(new.items()):
        before = old.get(path, old.get(renamed.get(path, "")))
        if scanned(path) and before != text:
            findings += prodscan.scan_change(
                path, before, text, prodscan.DataPaths(), "author",
                review=reach.Review("reviewer", own),
            )  # fmt: skip
    return findings


def renames(old: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    """Added path -> removed path it was renamed from, as git pairs them: the same file name
    and at least half the lines alike (git's default rename threshold)."""
    removed = [path for path in old if path not in new]
    found = {}
    for path in (p for p in new if p not in old):
        name = path.rpartition("/")[2]
        best, score = None, 0.5
        for candidate in (p for p in removed if p.rpartition("/")[2] == name):
            ratio = difflib.SequenceMatcher(
                None, old[candidate].splitlines(), new[path].splitlines()
            ).quick_ratio()
            if ratio >= score:
                best, score = candidate, ratio
        if best is not None:
            found[path] = best
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fetch", action="store_true")
    parser.add_argument("--only", action="append", choices=sorted(RELEASES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    projects = args.only or sorted(RELEASES)
    if args.fetch:
        return fetch(projects)
    patches = stopped = stopped_reach = 0
    errors: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    rows = []
    for name in projects:
        versions = [v for v in reversed(RELEASES[name]) if _sdist(name, v) is not None]
        for older, newer in itertools.pairwise(versions):
            found = review_pair(sources(_path(name, older)), sources(_path(name, newer)))
            failing = [f for f in found if f.severity is Severity.ERROR]
            patches += 1
            stopped += bool(failing)
            stopped_reach += any(f.rule in reach.RULES for f in failing)
            errors.update(f.rule for f in failing)
            warnings.update(f.rule for f in found if f.severity is Severity.WARNING)
            rows.append({"project": name, "from": older, "to": newer, "errors": [
                f"{f.rule} {f.path}:{f.line} {f.message}" for f in failing
            ], "warnings": len(found) - len(failing)})  # fmt: skip
    summary = {
        "patches": patches,
        "stopped": stopped,
        "stopped_by_reach_review": stopped_reach,
        "errors": dict(errors),
        "warnings": dict(warnings),
    }
    if args.json:
        print(json.dumps({"summary": summary, "patches": rows}, indent=2))
        return 0
    for row in rows:
        print(f"{row['project']} {row['from']} -> {row['to']}: {len(row['errors'])} errors, "
              f"{row['warnings']} warnings")  # fmt: skip
        for error in row["errors"]:
            print(f"    {error}")
    print(json.dumps(summary))
    return 0


def _path(name: str, version: str) -> Path:
    path = _sdist(name, version)
    assert path is not None
    return path


if __name__ == "__main__":
    raise SystemExit(main())
