"""Main's side of the observed signs, recorded once in main's run by `planegate digest`.

A gate looks at the patch's observed signs (signs/compare.py) against main's: what main's
production code opens under each test, which harness changes main's run shows, and which
fixture tests survive their perturbed data on main. Main's run in the digest is traced as the
gate's head run is, and is followed by the fixture probe on main's tree (every candidate the
probe would pick, no budget: once per push to main): a gate whose digest holds them compares
with them and runs nothing on the base for its signs (signs/on_main.py).
"""

from __future__ import annotations

from planegate.config.planemap import PlaneMap, data_files, file_of
from planegate.probes.fixture import plan as probe
from planegate.probes.fixture.whole import passing, write_all
from planegate.repo.digest_format import RecordedSigns
from planegate.repo.snapshot import Snapshot
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions
from planegate.signs import compare, unseen


def recorded(
    result: RunResult,
    probed: dict[str, tuple[str, ...]],
    survivors: tuple[str, ...] = (),
    whole: tuple[str, ...] = (),
) -> RecordedSigns:
    """Main's production reads, harness changes and process starts from its traced run, with
    the probe's."""
    harness = {
        (sign.event, sign.path, sign.line)
        for tamper in result.tampering
        if (sign := compare.harness_sign(tamper)) is not None
    }
    launches = {launch.sign for reads in result.reads.values() for launch in reads.launches}
    return RecordedSigns(
        prod_reads={key: reads.prod for key, reads in sorted(result.reads.items()) if reads.prod},
        launches=tuple(sorted(launches)),
        unseen=unseen.excess(result),
        harness=tuple(sorted(harness)),
        probed=probed,
        survivors=survivors,
        whole=whole,
    )


def probe_on_main(
    sessions: Sessions, snap: Snapshot, plane_map: PlaneMap, result: RunResult
) -> RecordedSigns | None:
    """The fixture probe on main's tree after main's run: every candidate once with one byte
    of its locked files changed, and the survivors once more with every byte changed. None
    when a session did not close (the digest then holds no signs: gates look on the base)."""
    cfg = plane_map.config
    if not cfg.fixture_probe:
        return recorded(result, {})
    passed = {
        nodeid: outcome.duration
        for nodeid, outcome in result.outcomes.items()
        if outcome.passed and plane_map.plane_of(nodeid) == "fixture"
    }
    sources = {
        path: data.decode("utf-8", "replace")
        for path in {file_of(n) for n in passed}
        if (data := snap.read(path)) is not None
    }
    chosen = probe.candidates(passed, sources, data_files(cfg, snap.files))
    if not chosen:
        return recorded(result, {})
    probed = {c.nodeid: c.files for c in chosen}
    probe.perturb_files(sessions.tree, [f for files in probed.values() for f in files])
    survivors = passing(sessions, list(probed))
    if survivors is None:
        return None
    whole: frozenset[str] = frozenset()
    if survivors:
        write_all(snap.read, sessions.tree, sorted({f for n in survivors for f in probed[n]}))
        again = passing(sessions, sorted(survivors))
        if again is None:
            return None
        whole = again
    return recorded(result, probed, tuple(sorted(survivors)), tuple(sorted(whole)))
