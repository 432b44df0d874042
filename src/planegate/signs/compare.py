"""Signs the patch would be blamed for, seen on main under the same conditions.

Three signs of the planes and hunks steps are observed, not read from a line: a fixture test
that survives its perturbed data (PG106), production code opening a file main's tests read
(PG562), and a harness binding that changed during the run with no line of the tree behind
the change (PG107 from the integrity checks' snapshot comparisons). Before the patch is
blamed, the gate looks at the same tests on the base's own tree (signs/on_main.py runs
those sessions); this module holds what they saw and the comparisons, as pure functions.

- A fixture test that also survives the same perturbation of the same files on the base, and
  with every byte of them changed passes on the head only where it passes on the base, is
  main's state (PG113, a warning for the fixture plane's owner); one the base catches stays
  PG106 against the patch.
- Production code that opened an oracle file in a test (or, outside any test, from a module)
  is main's behaviour when main's production code opened the same file under the same key in
  the base's traced session (PG562 as a warning); a read the base does not show stays an error.
- A harness change is main's when the base's session shows the same change, compared by what
  changed, the inserted object's class and the file and line defining it (a module of the
  tree named like a dependency has another file), and nothing that fed it changed: neither
  the definition of that class (with what it uses of its module: `lines.MainsLines`) nor
  any file production code read with it on the stack (`fed_by_patch`): PG112, a warning;
  otherwise PG107.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from planegate.repo.tree_paths import without_tree
from planegate.runner.session import Tamper
from planegate.runner.traced import Launch, Reads

HARNESS = "harness changed: "
_REPORTED = re.compile(r" \(when (?P<nodeid>.+) reported its \w+\)$")
_END = " (at the end of the session)"
_COPY = re.compile(r"@\d+$")


@dataclass(frozen=True)
class MainsSigns:
    """What main showed (signs/on_main.py: main's run in the digest, or the base's
    sessions); empty when nothing was looked at."""

    survivors: tuple[str, ...] = ()  # fixture survivors that are main's state
    caught: tuple[str, ...] = ()  # survivors the base caught (one byte, or every byte changed)
    prod_reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # key: files
    harness: tuple[Tamper, ...] = ()  # the base's harness changes, as `harness_sign` gives
    traced: bool = False  # the traced session ran and closed: prod_reads and harness tell
    problems: tuple[str, ...] = ()  # why a session tells nothing (it did not close)
    recorded: bool = False  # read from main's run in the digest: nothing ran on the base
    launches: tuple[Launch, ...] = ()  # main's process starts and loads (signs/spawned.py)
    unseen: Mapping[str, int] | None = None  # main's unseen opens of locked files (unseen.py)


def harness_sign(tamper: Tamper) -> Tamper | None:
    """A harness change without the checkpoint that saw it (each run sees it at its own),
    with the trees' own folders taken out; None for every other sign."""
    if not tamper.event.startswith(HARNESS):
        return None
    event, paren, when = tamper.event.rpartition(" (")
    if not paren or not when.endswith(")"):
        event = tamper.event
    return Tamper(without_tree(event), without_tree(tamper.path), tamper.line)


def harness_anchors(tampering: Iterable[Tamper], selected: Sequence[str]) -> tuple[str, ...]:
    """The tests to run on the base so that it can show the same harness changes: the test
    whose report saw the change, and the one before it (its teardown is seen then); the last
    test for a change seen at the end. Changes seen at collection need no test: the base's
    session collects what the head's run collected."""
    order = {nodeid: index for index, nodeid in enumerate(selected)}
    found: set[str] = set()
    for tamper in tampering:
        if harness_sign(tamper) is None:
            continue
        match = _REPORTED.search(tamper.event)
        if match is not None:
            nodeid = _COPY.sub("", match["nodeid"])  # a repeat probe's copy: `<nodeid>@2`
            index = order.get(nodeid)
            if index is not None:
                found.update(selected[max(0, index - 1) : index + 1])
        elif tamper.event.endswith(_END) and selected:
            found.add(selected[-1])
    return tuple(sorted(found))


def oracle_reads(
    reads: Mapping[str, Reads], locked: Iterable[str] = ()
) -> dict[str, tuple[str, ...]]:
    """Key (a nodeid, or a module outside any test) -> the files production code opened under
    it that some test side read (the oracle), or that are locked: a shard does not see the
    other shards' test sides, and a locked file one of them reads is still compared on main."""
    wanted = {path for r in reads.values() for path in r.test} | set(locked)
    found = {key: tuple(p for p in r.prod if p in wanted) for key, r in reads.items()}
    return {key: paths for key, paths in sorted(found.items()) if paths}


def oracle_tests(oracle: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The tests to trace on the base (reads keyed by a module come with its collection)."""
    return tuple(sorted(key for key in oracle if "::" in key))


def mains_read(path: str, head: Mapping[str, Reads], signs: MainsSigns) -> bool:
    """Whether every key under which production code opened `path` on the head shows main's
    production code opening it on the base too."""
    if not signs.traced:
        return False
    keys = [key for key, r in head.items() if path in r.prod]
    return bool(keys) and all(path in signs.prod_reads.get(key, ()) for key in keys)


def mains_harness(
    tamper: Tamper, signs: MainsSigns, base_line: Callable[[str, int], int | None] | None = None
) -> bool:
    """Whether a harness change of the head's run is one the base's session showed too: the
    same change, by an object of the same class, defined at the same line of main's file
    (`base_line`: a head line's number on the base, where the patch moved lines)."""
    sign = harness_sign(tamper)
    if sign is None or not signs.traced:
        return False
    line = base_line(sign.path, sign.line) if base_line and sign.path and sign.line else None
    return sign in signs.harness or (
        line is not None and Tamper(sign.event, sign.path, line) in signs.harness
    )


def fed_by_patch(path: str, reads: Mapping[str, Reads], changed: Iterable[str]) -> tuple[str, ...]:
    """What the patch changed of what fed the code of `path` during the run: `path` itself,
    and every file production code read with `path` on its stack (traced, any test or
    module); empty when nothing that fed it changed."""
    changed_set = set(changed)
    fed = {path} | {
        read for r in reads.values() for read, readers in r.via.items() if path in readers
    }
    return tuple(sorted(fed & changed_set))


def base_prod_reads(reads: Mapping[str, Reads], keys: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """What the base's production code opened under each key the head's oracle reads name."""
    return {key: reads[key].prod for key in sorted(set(keys)) if key in reads}
