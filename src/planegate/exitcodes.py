"""Exit codes: one per gate step, plus sysexits-style codes for everything else (DESIGN §4)."""

from __future__ import annotations

from typing import NamedTuple

PASS = 0
PLANES = 1
INVENTORY = 2
EVIDENCE = 3
LEDGER = 4
HUNKS = 5
BASE_BROKEN = 6
USAGE = 64
DATA = 65
UNAVAILABLE = 69
INTERNAL = 70
CONFIG = 78


class ExitCode(NamedTuple):  # not a dataclass: `planegate --version` imports this module
    code: int
    name: str
    meaning: str
    owner: str


EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(PASS, "pass", "every step passed", "nobody"),
    ExitCode(
        PLANES,
        "planes",
        "main's property or fixture tests did not all pass against the patch's production code",
        "the patch author",
    ),
    ExitCode(
        INVENTORY,
        "inventory",
        "a nodeid is unclassified, in two planes, in a mixed file, changed plane or vanished",
        "the plane map's owner",
    ),
    ExitCode(
        EVIDENCE,
        "evidence",
        "a protected path changed, or the digest or fixture manifest does not match",
        "the corpus owner (plane owner / CODEOWNERS)",
    ),
    ExitCode(
        LEDGER, "ledger", "the freeze ledger is invalid or a replay is overdue", "the entry's owner"
    ),
    ExitCode(
        HUNKS,
        "hunks",
        "a test was weakened (skip/xfail added, assert removed, budget cut) or production "
        "code inspects the test harness",
        "the patch author",
    ),
    ExitCode(
        BASE_BROKEN,
        "base-broken",
        "the sweep found a test failing on every run of the base, or the gate saw a scoring "
        "test fail on the base as on the patch",
        "the base's owner",
    ),
    ExitCode(USAGE, "usage", "the command line was wrong", "the caller"),
    ExitCode(
        DATA,
        "data",
        "an input file (digest, ledger, manifest, report, shard evidence) is malformed",
        "the file's owner",
    ),
    ExitCode(
        UNAVAILABLE,
        "unavailable",
        "a service planegate needs (git, GitHub) is unavailable",
        "the operator",
    ),
    ExitCode(
        INTERNAL,
        "internal",
        "planegate itself failed; rerun with --debug and report it",
        "planegate",
    ),
    ExitCode(
        CONFIG, "config", "planegate.yml (or a path it names) is invalid", "the plane map's owner"
    ),
)


def describe(code: int) -> ExitCode | None:
    return next((entry for entry in EXIT_CODES if entry.code == code), None)


def named(name: str) -> ExitCode:
    """The entry called `name` (a gate step's name is its exit code's)."""
    for entry in EXIT_CODES:
        if entry.name == name:
            return entry
    raise KeyError(f"no exit code is named {name!r}")
