"""Step 5, test hunks (exit 5): no skip/xfail/importorskip added, no assert removed or made
vacuous, no budget cut, no production code that inspects the test harness."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from planegate.analysis.foreign_lines import is_foreign_test
from planegate.analysis.hunks import is_test_file
from planegate.analysis.hunks.batch import FileChange
from planegate.analysis.hunks.batch import ready_workers as ready_workers_for
from planegate.config.load import Config
from planegate.config.owners import UNOWNED
from planegate.config.planemap import data_files
from planegate.findings import Finding, Step
from planegate.gitfacts import GitFacts
from planegate.probes import registry
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import decode
from planegate.report import StepResult
from planegate.signs import findings as signs_findings
from planegate.signs import spawned, unseen
from planegate.steps import hunks_started
from planegate.steps.hunks_started import GitOnly, OtherFile, StartedAnalysis
from planegate.steps.run_facts import RunFacts

if TYPE_CHECKING:  # its module is imported only for a patch that changes many test files
    from planegate.analysis.hunks.processes import Workers

ASYNC_PLUGINS = {"asyncio", "pytest_asyncio", "pytest-asyncio", "anyio", "trio", "pytest_trio"}


def ready_workers(changes: tuple[Change, ...]) -> Workers | None:
    """Worker processes started ahead for a patch that changes many test files (they start up
    while the configuration is read); `start` gives them their work."""
    return ready_workers_for(sum(is_test_file(change.path) for change in changes))


def start(ctx: GitFacts, ready: Workers | None = None) -> StartedAnalysis:
    """Read the changed files and start the analysis of the test files among them (on the
    `ready` workers, when given)."""
    changed: list[FileChange | OtherFile] = []
    base, head = _texts(ctx)
    for change in ctx.changes:
        path = change.path
        old_text, new_text = base.get(change.old_path or path), head.get(path)
        if is_test_file(path) or (path.endswith(".py") and ctx.plane_map.is_plane_file(path)):
            changed.append(_file_change(ctx, change, old_text, new_text))
        else:
            changed.append(OtherFile(path, old_text, new_text))
    return hunks_started.start(tuple(changed), ready)


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    started = run.hunk_analysis or start(ctx)
    ahead = git_only(ctx, started)() if started.git_only is None else started.git_only()
    findings: list[Finding] = [*ahead.changed, *started.findings(), *ahead.main]
    findings += signs_findings.oracle_findings(ctx, run, ahead.data_files)
    findings += spawned.findings(ctx, run.head_run.reads, run.mains_signs)
    findings += unseen.findings(ctx, run)
    probes = registry.reported(Step.HUNKS, ctx, run)
    findings += probes.findings
    analysed = f"{len(started.test_files)} changed test files analysed"
    mains = spawned.notes(ctx, run.head_run.reads, run.mains_signs)
    return StepResult(Step.HUNKS, tuple(findings), (analysed, *mains, *probes.notes))


def git_only(ctx: GitFacts, started: StartedAnalysis) -> Callable[[], GitOnly]:
    """The step's git-only findings as a call that reads no git: what it needs (main's
    property-plane files) is read here, on the calling thread, so the call can run on
    another one (gate/alongside.py)."""
    fixture = ctx.cfg.planes["fixture"]
    data = (
        (*fixture.data, *fixture.paths, *fixture.admit),
        tuple(data_files(ctx.cfg, ctx.base.files)),
    )
    own = own_packages(ctx.base.files)
    reviewers = {
        change.path: _reviewer(ctx, change.path)
        for change in started.changed
        if isinstance(change, OtherFile)
    }
    foreign = _foreign_changes(ctx, started)
    owner, base_lint = ctx.cfg.planes["property"].owner, _property_texts(ctx)
    author, max_bytes = ctx.author, ctx.cfg.max_file_bytes
    _ = ctx.protection  # read from git here: the production-code answers' scan needs it

    def work() -> GitOnly:
        # imported here: on the thread beside the test child (gate/alongside.py)
        from planegate.analysis import foreign_tests, lint, prodscan, reach
        from planegate.probes.in_code import findings as in_code

        data_paths = prodscan.DataPaths(*data)
        findings: list[Finding] = []
        for change in started.changed:
            if isinstance(change, OtherFile):
                # production-code scan: non-test files, and packaging files for entry points
                findings += prodscan.scan_change(
                    change.path, change.base, change.head, data_paths, author, max_bytes,
                    review=reach.Review(reviewers[change.path], own),
                )  # fmt: skip
                continue
            small = len(change.head or "") <= max_bytes
            if change.plane == "property" and change.path.endswith(".py") and small:
                findings += lint.added_findings(change.path, change.base, change.head, author)
        main = [
            finding
            for (path, plane), base, head in foreign
            for finding in foreign_tests.analyse(
                foreign_tests.Where(path, author, plane), base, head
            )
        ]
        main += [
            finding for path, text in base_lint for finding in lint.base_findings(path, text, owner)
        ]
        others = [c for c in started.changed if isinstance(c, OtherFile)]
        in_code.tokens_ahead(ctx, [(c.path, c.base, c.head) for c in others])  # for PG570
        return GitOnly(tuple(findings), tuple(main), data_paths.files)

    return work


def _foreign_changes(
    ctx: GitFacts, started: StartedAnalysis
) -> list[tuple[tuple[str, str | None], str, str]]:
    """A `runner: junit` suite's changed test sources in other languages, for the text rules
    (PG527-PG531). An added or deleted file is the inventory's and the evidence step's."""
    if ctx.cfg.runner != "junit":
        return []
    return [
        (
            (change.path, ctx.plane_map.plane_of_file(change.path)),
            change.base,
            change.head,
        )
        for change in started.changed
        if isinstance(change, OtherFile) and change.base is not None and change.head is not None
        if is_foreign_test(change.path, ctx.protection.covers(change.path))
    ]


def _texts(ctx: GitFacts) -> tuple[dict[str, str], dict[str, str]]:
    """The changed files' texts on the base and the head, each side read in one batch."""
    base = ctx.base.read_many({change.old_path or change.path for change in ctx.changes})
    head = ctx.head.read_many({change.path for change in ctx.changes})
    return (
        {path: data.decode("utf-8", "replace") for path, data in base.items()},
        {path: data.decode("utf-8", "replace") for path, data in head.items()},
    )


def _file_change(ctx: GitFacts, change: Change, base: str | None, head: str | None) -> FileChange:
    plane = ctx.plane_map.plane_of_file(change.path)
    return FileChange(
        change.path,
        base,
        head,
        plane=plane,
        owner=ctx.author,
        fixture_plane=plane == "fixture",
        async_plugin=_async_plugin(ctx.cfg),
        max_bytes=ctx.cfg.max_file_bytes,
    )


def _async_plugin(cfg: Config) -> bool:
    return bool(ASYNC_PLUGINS & set(cfg.pytest_plugins))


def _reviewer(ctx: GitFacts, path: str) -> str:
    """Who reviews what the reach review stops (a person, not the patch's author): the
    property plane's owner, else the fixture plane's, else CODEOWNERS of the path, else the
    configuration's owner."""
    for plane in ("property", "fixture"):
        owner = ctx.cfg.planes[plane].owner
        if owner != UNOWNED:
            return owner
    return ctx.who.of_protected(None, path)


def own_packages(files: Iterable[str]) -> frozenset[str]:
    """The base's own top-level packages and modules (at the root or under `src/`): the
    patch cannot make a module its own by adding a folder of that name."""
    own = set()
    for path in files:
        parts = path.split("/")
        if parts[0] == "src" and len(parts) > 2:
            parts = parts[1:]
        if len(parts) == 2 and parts[1] == "__init__.py":
            own.add(parts[0])
        elif len(parts) == 1 and path.endswith(".py"):
            own.add(path[:-3])
    return frozenset(own)


def _property_texts(ctx: GitFacts) -> list[tuple[str, str | None]]:
    """Main's property-plane Python files and their texts, for the lint of what is already on
    main (warnings for the plane's owner)."""
    paths = [
        path
        for path in ctx.base.files
        if path.endswith(".py") and ctx.plane_map.plane_of_file(path) == "property"
    ]
    texts = ctx.base.read_many(paths)  # one git process for all of them
    return [(path, decode(texts.get(path))) for path in paths]
