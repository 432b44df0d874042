"""Step 5, test hunks (exit 5): no skip/xfail/importorskip added, no assert removed or made
vacuous, no budget cut, no production code that inspects the test harness."""

from __future__ import annotations

from planegate.analysis import lint, prodscan
from planegate.analysis.hunks import is_test_file
from planegate.analysis.hunks.batch import FileChange, analyze_files
from planegate.config.load import Config
from planegate.config.planemap import data_files
from planegate.findings import Finding, Step
from planegate.repo.gitdiff import Change
from planegate.report import StepResult
from planegate.steps import hunks_answers, observed
from planegate.steps.inputs import GitFacts, RunFacts

ASYNC_PLUGINS = {"asyncio", "pytest_asyncio", "pytest-asyncio", "anyio", "trio", "pytest_trio"}


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    findings: list[Finding] = []
    changed: list[FileChange] = []
    data_paths = _data_paths(ctx)
    base, head = _texts(ctx)
    for change in ctx.changes:
        path = change.path
        old_text, new_text = base.get(change.old_path or path), head.get(path)
        if not (is_test_file(path) or (path.endswith(".py") and ctx.plane_map.is_plane_file(path))):
            # production-code scan: non-test files, and packaging files for entry points
            findings += prodscan.scan_change(
                path, old_text, new_text, data_paths, ctx.author, ctx.cfg.max_file_bytes
            )
            continue
        file_change = _file_change(ctx, change, old_text, new_text)
        small = len(file_change.head or "") <= ctx.cfg.max_file_bytes
        if file_change.plane == "property" and path.endswith(".py") and small:
            findings += lint.added_findings(path, file_change.base, file_change.head, ctx.author)
        changed.append(file_change)
    findings += analyze_files(changed)
    findings += _lint_base(ctx)
    findings += observed.oracle_findings(ctx, run, data_paths.files)
    mirrored, answers_note = hunks_answers.check(ctx)
    findings += mirrored
    notes = (f"{len(changed)} changed test files analysed", *filter(None, [answers_note]))
    return StepResult(Step.HUNKS, tuple(findings), notes)


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


def _data_paths(ctx: GitFacts) -> prodscan.DataPaths:
    fixture = ctx.cfg.planes["fixture"]
    files = data_files(ctx.cfg, ctx.base.files)
    return prodscan.DataPaths((*fixture.data, *fixture.paths), tuple(files))


def _lint_base(ctx: GitFacts) -> list[Finding]:
    """Property-plane lint violations already on main: warnings for the plane's owner."""
    owner = ctx.cfg.planes["property"].owner
    return [
        finding
        for path in ctx.base.files
        if path.endswith(".py") and ctx.plane_map.plane_of_file(path) == "property"
        for finding in lint.base_findings(path, ctx.base.text(path), owner)
    ]
