"""Tests the patch adds: the patch's claims, not evidence (DESIGN §1, "New tests").

A test file the patch adds never runs in the session that runs main's evidence: the gate
takes it out of that tree and runs it apart, in a session of its own whose outcomes never
vote (gate/execute.py). Its nodeids are unclassified (PG207, exit 2) until a person classifies
them: rows the head's `planegate.yml` adds to a plane's `nodeids` for files the patch adds, and
nothing else, in commits no agent made; or the base declares an `admit` folder of a plane
where the file was added. The report shows the rows that would classify what is left.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from posixpath import basename

from planegate import untrusted
from planegate.config.agents import agent_identity, matches_any
from planegate.config.classify import Classification, HeadRows
from planegate.config.load import Config
from planegate.config.pathmatch import PathPatterns
from planegate.config.planemap import NewFilesMap, file_of, test_kinds
from planegate.config.protection import ProtectedChange
from planegate.findings import Finding, Severity, Step
from planegate.repo.git import CommitIdentity
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot
from planegate.report import NewTestResult
from planegate.runner.session import RunResult
from planegate.vocabulary import SCORING_PLANES

PYTHON_FILES = ("test_*.py", "*_test.py")  # pytest's default `python_files`
MAX_LISTED = 5


def added_test_files(
    changes: Iterable[Change], ini_options: Mapping[str, object]
) -> tuple[str, ...]:
    """The files the patch adds that pytest would collect as test modules (the base's
    `python_files`, else pytest's default)."""
    value = ini_options.get("python_files")
    if isinstance(value, str):
        globs = value.split()
    elif isinstance(value, list):
        globs = [str(glob) for glob in value]
    else:
        globs = list(PYTHON_FILES)
    return tuple(
        sorted(
            change.path
            for change in changes
            if change.status == "A"
            and change.path.endswith(".py")
            and any(_matches(change.path, glob) for glob in globs)
        )
    )


def _matches(path: str, glob: str) -> bool:
    """pytest's `python_files` match: the file's name, or its path for a glob with a `/`."""
    return fnmatch.fnmatch(path if "/" in glob else basename(path), glob)


Person = Callable[[CommitIdentity], str | None]  # None: a person's commit; else why not


def git_person(authors: Sequence[str]) -> Person:
    """A commit is a person's when neither its author nor its committer, as git records them,
    is an agent's (`agents.authors`): what the CLI can know of a local repository."""

    def why_not(commit: CommitIdentity) -> str | None:
        for name, email in (
            (commit.author_name, commit.author_email),
            (commit.committer_name, commit.committer_email),
        ):
            if agent_identity(name, email, authors):
                return f"commit {commit.sha[:12]} is by an agent ({name} <{email}>)"
        return None

    return why_not


def verified_people(login_of: Callable[[str], str | None], authors: Sequence[str]) -> Person:
    """A commit is a person's when GitHub verified who made it (`login_of`: the login, or
    None; github/commit_people.py) and no `agents.authors` pattern matches that login."""

    def why_not(commit: CommitIdentity) -> str | None:
        login = login_of(commit.sha)
        if login is None:
            return (
                f"commit {commit.sha[:12]} is not one GitHub verified (a signed commit, or one "
                "made on github.com); the name a commit claims is not enough"
            )
        if matches_any(login, authors):
            return f"commit {commit.sha[:12]} is by an agent ({login}, verified by GitHub)"
        return None

    return why_not


@dataclass(frozen=True)
class Sources:
    """What `classify` reads: the base's configuration, both sides' configuration text, the
    commits that changed it on the head, and who counts as a person."""

    cfg: Config
    frozen: frozenset[str]
    files: tuple[str, ...]
    base_text: bytes | None
    head_text: bytes | None
    rows: Callable[[], HeadRows]
    commits: Callable[[], list[CommitIdentity]]
    person: Person


def classify(src: Sources) -> Classification:
    if not src.files:
        return Classification()
    admitted = _admitted(src.cfg, src.files)
    rows, refused = HeadRows(), ""
    accepted_by: tuple[str, ...] = ()
    if src.head_text is not None and src.head_text != src.base_text:
        rows = src.rows()
        if rows.entries or rows.other:
            accepted_by, refused = _accept(src, rows)
    extra: dict[str, list[str]] = {plane: [] for plane in SCORING_PLANES}
    for path, plane in admitted.items():
        extra[plane].append(path)
    if accepted_by:
        for plane, entries in rows.rows.items():
            extra[plane] += entries
    planes = {
        name: replace(plane, nodeids=(*plane.nodeids, *extra.get(name, ())))
        for name, plane in src.cfg.planes.items()
    }
    plane_map = NewFilesMap(replace(src.cfg, planes=planes), src.frozen, frozenset(src.files))
    return Classification(src.files, admitted, rows, accepted_by, refused, plane_map)


def _admitted(cfg: Config, files: Iterable[str]) -> dict[str, str]:
    """Added test files under exactly one plane's `admit` folders -> that plane."""
    specs = {p: PathPatterns(cfg.planes[p].admit) for p in SCORING_PLANES if cfg.planes[p].admit}
    found: dict[str, str] = {}
    for path in files:
        planes = [plane for plane, spec in specs.items() if spec.match_file(path)]
        if len(planes) == 1:
            found[path] = planes[0]
    return found


def _accept(src: Sources, rows: HeadRows) -> tuple[tuple[str, ...], str]:
    """The commits that made the rows, when every one is a person's; else why not."""
    if rows.other:
        return (), rows.other
    outside = [e for e in rows.entries if file_of(e) not in src.files]
    if outside:
        return (), f"{outside[0]} is not in a test file the patch adds"
    commits = src.commits()
    if not commits:
        return (), "no commit of the patch changed it"
    for commit in commits:
        why = src.person(commit)
        if why is not None:
            return (), why
    return tuple(f"{c.sha[:12]} ({c.author_name})" for c in commits), ""


def inventory_findings(
    found: Classification, run: RunResult | None, sources: Mapping[str, str], owner: str
) -> tuple[list[Finding], list[str]]:
    """PG207 for each added file whose tests are in no plane; PG208 for what did not pass in
    their own session; and notes on what was classified and how."""
    findings: list[Finding] = []
    notes: list[str] = []
    if not found.files:
        return findings, notes
    by_file = _nodeids_by_file(found, run)
    for path in found.files:
        ids = by_file.get(path, [])
        open_ids = [n for n in ids if found.plane_of(n) == "unclassified"]
        if open_ids or (not ids and not _named(found, path)):
            findings.append(_unclassified(path, open_ids, found, owner, sources.get(path)))
    findings += _outcomes(found, run, owner)
    notes.append(_summary(found, run))
    if found.accepted:
        notes.append(
            f"rows a person added to {len(found.rows.entries)} entries of the planes' nodeids "
            f"accepted from the head: {', '.join(found.accepted_by[:MAX_LISTED])}"
        )
    for path, plane in sorted(found.admitted.items()):
        notes.append(f"{path} added under an admit folder of the {plane} plane: joins it")
    return findings, [untrusted.one_line(note) for note in notes]


def _named(found: Classification, path: str) -> bool:
    """A file with no collected test is classified only by name: an admit folder, or a
    person's accepted entry for it."""
    if path in found.admitted:
        return True
    return found.accepted and any(file_of(entry) == path for entry in found.rows.entries)


def _nodeids_by_file(found: Classification, run: RunResult | None) -> dict[str, list[str]]:
    by_file: dict[str, list[str]] = {}
    files = set(found.files)
    for nodeid in () if run is None else run.collected:
        if file_of(nodeid) in files:
            by_file.setdefault(file_of(nodeid), []).append(nodeid)
    return by_file


def _unclassified(
    path: str, nodeids: list[str], found: Classification, owner: str, source: str | None
) -> Finding:
    listed = ", ".join(nodeids[:MAX_LISTED]) + (" ..." if len(nodeids) > MAX_LISTED else "")
    count = f"{len(nodeids)} test{'s' if len(nodeids) != 1 else ''}"
    what = (
        f"{count} the patch adds, in no plane ({listed})"
        if nodeids
        else "a test file the patch adds"
    )
    plane = suggested_plane(source)
    refused = f"; the head's rows were not taken: {found.refused}" if found.refused else ""
    return Finding(
        "PG207",
        Step.INVENTORY,
        Severity.ERROR,
        untrusted.one_line(
            f"{what}: run apart, not voting, until a person classifies them by adding "
            f"{path} to planes.{plane}.nodeids in planegate.yml in a commit of their own "
            f"(the rows are in the report){refused}"
        ),
        path=path,
        owner=owner,
    )


def _outcomes(found: Classification, run: RunResult | None, owner: str) -> list[Finding]:
    """PG208: the claims' own session did not finish, or a claim did not pass in it."""
    if run is None:
        return []
    findings = []
    if not run.closed or run.timed_out:
        why = "timed out" if run.timed_out else f"exited {run.exit_status}"
        findings.append(_claim_finding(f"the session of the tests the patch adds {why}", owner))
    for nodeid, message in run.collect_errors:
        last = message.strip().splitlines()[-1] if message.strip() else "collection error"
        findings.append(_claim_finding(f"{nodeid or 'session'}: {last}", owner, nodeid))
    for nodeid in run.collected:
        outcome = run.outcome_of(nodeid)
        if not outcome.passed:
            findings.append(
                _claim_finding(
                    f"{nodeid} {outcome.outcome} in its own session ({found.plane_of(nodeid)})",
                    owner,
                    nodeid,
                )
            )
    return findings


def _claim_finding(message: str, owner: str, nodeid: str | None = None) -> Finding:
    return Finding(
        "PG208",
        Step.INVENTORY,
        Severity.WARNING,
        untrusted.one_line(f"{message}; a test the patch adds is its claim and does not vote"),
        path=file_of(nodeid) if nodeid else None,
        owner=owner,
        nodeid=nodeid if nodeid and "::" in nodeid else None,
    )


def _summary(found: Classification, run: RunResult | None) -> str:
    files = f"{len(found.files)} test files the patch adds"
    if run is None:
        return f"{files}: not run in this part of the gate"
    passed = sum(1 for n in run.collected if run.outcome_of(n).passed)
    return f"{files} ran apart (never voting): {passed}/{len(run.collected)} tests passed"


def suggested_plane(source: str | None) -> str:
    """The plane `planegate init` would give a file: property when all its tests use @given."""
    kinds = test_kinds(source or "")
    return "property" if kinds and all(given for _, _, given in kinds) else "fixture"


def rows_to_add(
    found: Classification, run: RunResult | None, sources: Mapping[str, str]
) -> tuple[str, ...]:
    """The `planegate.yml` lines that would classify every added file still in no plane."""
    by_file = _nodeids_by_file(found, run)
    wanted: dict[str, list[str]] = {}
    for path in found.files:
        ids = by_file.get(path, [])
        if any(found.plane_of(n) == "unclassified" for n in ids) or (
            not ids and not _named(found, path)
        ):
            wanted.setdefault(suggested_plane(sources.get(path)), []).append(path)
    if not wanted:
        return ()
    lines = ["planes:"]
    for plane in SCORING_PLANES:
        if plane in wanted:
            lines += [f"  {plane}:", "    nodeids:"]
            lines += [f"      - {json.dumps(path, ensure_ascii=False)}" for path in wanted[plane]]
    return tuple(lines)


def protected_changes(
    found: Classification, changes: Sequence[ProtectedChange], config_path: str
) -> tuple[list[ProtectedChange], list[str]]:
    """The protected changes step 3 judges: a test file the patch adds is its claim, not
    evidence (it never runs with main's evidence), and a person's accepted rows are the one
    change to the configuration the gate takes from the head."""
    claims = set(found.files)
    kept, notes = [], []
    for change in changes:
        if change.status == "added" and change.path in claims:
            continue
        if change.path == config_path and change.status == "modified" and found.accepted:
            notes.append(
                f"{config_path}: only rows a person added for tests the patch adds "
                f"({', '.join(found.accepted_by[:MAX_LISTED])})"
            )
            continue
        kept.append(change)
    return kept, [untrusted.one_line(note) for note in notes]


def with_refusal(found: Classification, findings: list[Finding], config_path: str) -> list[Finding]:
    """The finding on a changed configuration says why its rows were not taken, if it adds any."""
    if not found.refused:
        return findings
    why = f" (not taken from the head: {found.refused})"
    return [
        replace(f, message=untrusted.one_line(f.message + why)) if f.path == config_path else f
        for f in findings
    ]


def results(found: Classification, run: RunResult | None) -> tuple[NewTestResult, ...]:
    """Each test of the added files, its outcome in their own session and its plane."""
    if run is None:
        return ()
    return tuple(
        NewTestResult(nodeid, run.outcome_of(nodeid).outcome, found.plane_of(nodeid))
        for nodeid in run.collected
    )


def sources_of(head: Snapshot, found: Classification) -> dict[str, str]:
    """The added files' text (what the suggested plane is read from)."""
    return {
        path: data.decode("utf-8", "replace") for path, data in head.read_many(found.files).items()
    }
