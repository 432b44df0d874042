"""The thin shell of each subcommand: read files, call the pure core, print, return an exit code."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from planegate import exitcodes
from planegate.config import load as config_mod
from planegate.config import manifest as fixtures
from planegate.errors import ConfigError, InputDataError, UsageError
from planegate.progress import Progress

if TYPE_CHECKING:
    from planegate.report import Report


def _root(args: argparse.Namespace) -> Path:
    root = Path(getattr(args, "root", "."))
    if not root.is_dir():
        raise UsageError(f"-C {root}: no such directory")
    return root


def _progress(args: argparse.Namespace) -> Progress:
    return Progress(quiet=bool(getattr(args, "quiet", False)))


def load_worktree_config(root: Path, requested: str | None) -> config_mod.Config:
    """The configuration as it is on disk (for commands a person runs in a checkout)."""
    existing = {p.name for p in root.iterdir() if p.is_file()}
    name = config_mod.find_config_name(existing, requested)
    if name is None and requested is not None and (root / requested).is_file():
        name = requested
    if name is None:
        raise config_mod.missing_config_error(requested or "planegate.yml", existing, f"in {root}")
    return config_mod.parse((root / name).read_text("utf-8", "replace"), name)


def cmd_gate(args: argparse.Namespace) -> int:
    from planegate.gate import pipeline as gate
    from planegate.report import text

    options = gate.GateOptions(
        root=_root(args),
        base=args.base,
        head=args.head,
        digest_file=args.digest,
        config_path=args.config,
        agent=not args.human,
        author=args.author,
    )
    report = gate.run(options, _progress(args))
    rendered = _render(report, args.format)
    if args.output is not None:
        args.output.write_text(rendered, "utf-8")
        if args.format != "text":
            sys.stdout.write(text.render(report))
    else:
        sys.stdout.write(rendered)
    return report.exit_code


def _render(report: Report, form: str) -> str:
    from planegate import __version__
    from planegate.report import json_report, sarif, text

    if form == "json":
        return json_report.render(report)
    if form == "sarif":
        return sarif.render(report, version=__version__)
    return text.render(report)


def cmd_digest(args: argparse.Namespace) -> int:
    from planegate.gate import digest as digest_mod
    from planegate.gate import pipeline as gate
    from planegate.repo.git import GitRepo

    repo = GitRepo(_root(args))
    commit = repo.resolve(args.commit)
    result = gate.build_digest(repo, commit, args.config, _progress(args))
    out = args.out if args.out.is_absolute() else _root(args) / args.out
    out.write_text(digest_mod.to_json(result), "utf-8")
    counts = ", ".join(f"{len(ids)} {plane}" for plane, ids in result.inventory.items())
    print(
        f"planegate: digest of {commit[:12]}: {len(result.files)} protected files, root "
        f"{result.root[:16]}, {counts} -> {out}"
    )
    return exitcodes.PASS


def _data_hashes(root: Path, cfg: config_mod.Config) -> dict[str, str]:
    from planegate.repo.hashing import file_sha256
    from planegate.steps import evidence

    files = [
        str(p.relative_to(root).as_posix())
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    ]
    return {path: file_sha256(root / path) for path in sorted(evidence.data_files(cfg, files))}


def _read_manifest(root: Path, cfg: config_mod.Config) -> fixtures.Manifest | None:
    path = root / cfg.manifest
    if not path.is_file():
        return None
    return fixtures.parse(path.read_text("utf-8", "replace"), cfg.manifest)


def cmd_lock(args: argparse.Namespace) -> int:
    root = _root(args)
    cfg = load_worktree_config(root, args.config)
    covers = {}
    for item in args.covers:
        path, sep, note = item.partition("=")
        if not sep:
            raise UsageError(f"--covers {item!r}: expected PATH=TEXT")
        covers[path] = note
    previous = _read_manifest(root, cfg)
    hashes = _data_hashes(root, cfg)
    manifest = fixtures.lock(previous, hashes, date.today().isoformat(), covers)
    target = root / cfg.manifest
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(fixtures.render(manifest), "utf-8")
    changed = [p for p in hashes if previous is None or previous.files.get(p) != hashes[p]]
    print(
        f"planegate: locked {len(hashes)} fixture data files in {cfg.manifest} "
        f"({len(changed)} new or changed)"
    )
    return exitcodes.PASS


def cmd_verify(args: argparse.Namespace) -> int:
    root = _root(args)
    cfg = load_worktree_config(root, args.config)
    manifest = _read_manifest(root, cfg)
    if manifest is None:
        raise InputDataError(f"{cfg.manifest}: no such file", "create it with `planegate lock`")
    hashes: dict[str, str | None] = dict(_data_hashes(root, cfg))
    for path in manifest.files:
        hashes.setdefault(path, None)
    mismatches = fixtures.verify(manifest, hashes)
    for mismatch in mismatches:
        print(f"{mismatch.path}: {mismatch.describe()}")
    if mismatches:
        print(
            f"planegate: {len(mismatches)} fixture files do not match {cfg.manifest}",
            file=sys.stderr,
        )
        return exitcodes.EVIDENCE
    print(f"planegate: {len(manifest.files)} fixture files match {cfg.manifest}")
    return exitcodes.PASS


def cmd_migrate(args: argparse.Namespace) -> int:
    from planegate.config import migrate

    root = _root(args)
    result = migrate.migrate([Path(f) if Path(f).is_absolute() else root / f for f in args.files])
    return _emit_config(root, result.text, result.notes, args.write)


def cmd_init(args: argparse.Namespace) -> int:
    from planegate.config import init_suite

    root = _root(args)
    if args.write and (root / "planegate.yml").exists():
        raise ConfigError(f"{root / 'planegate.yml'}: exists already; not overwritten")
    options = init_suite.InitOptions(
        root,
        tuple(args.tests),
        tuple(dict.fromkeys(["hypothesis", *(args.plugin or [])])),
        args.split,
    )
    result = init_suite.propose(options, _progress(args))
    return _emit_config(root, result.text, result.notes, args.write)


def _emit_config(root: Path, text: str, notes: list[str], write: bool) -> int:
    for note in notes:
        print(f"planegate: {note}", file=sys.stderr)
    config_mod.parse(text, "planegate.yml")  # what we write must load
    if not write:
        sys.stdout.write(text)
        return exitcodes.PASS
    target = root / "planegate.yml"
    if target.exists():
        raise ConfigError(
            f"{target}: exists already; not overwritten",
            "move it aside, or run without --write and merge by hand",
        )
    target.write_text(text, "utf-8")
    print(f"planegate: wrote {target}", file=sys.stderr)
    return exitcodes.PASS


def cmd_ledger(args: argparse.Namespace) -> int:
    from planegate.freeze import ledger

    root = _root(args)
    name = args.file or load_worktree_config(root, args.config).ledger
    path = Path(name) if Path(name).is_absolute() else root / name
    today = date.today()
    problems = ledger.check_file(path, today)
    for problem in problems:
        print(
            f"{name}:{problem.line}: {problem.message}"
            if problem.line
            else f"{name}: {problem.message}"
        )
    if problems:
        print(f"planegate: {len(problems)} problems in {name}", file=sys.stderr)
        return exitcodes.DATA
    parsed = ledger.parse(path.read_text("utf-8"), name)
    for due in ledger.replays_due(parsed.state(), today):
        print(
            f"{name}:{due.line}: replay due for {due.nodeid} since {due.review_by} "
            f"({due.days_overdue} days; owner {due.owner})"
        )
    print(f"planegate: {name}: {len(parsed.events)} events, {len(parsed.state())} frozen")
    return exitcodes.PASS


def cmd_lint(args: argparse.Namespace) -> int:
    from planegate.analysis import lint
    from planegate.config import planemap as planes

    root = _root(args)
    cfg = load_worktree_config(root, args.config)
    plane_map = planes.PlaneMap(cfg)
    relative = (path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    files = sorted(
        rel
        for rel in relative
        if not any(part.startswith(".") for part in rel.split("/"))
        and plane_map.plane_of_file(rel) == "property"
    )
    found = [
        finding
        for rel in files
        for finding in lint.base_findings(rel, (root / rel).read_text("utf-8", "replace"), "")
    ]
    for finding in found:
        message = finding.message.removesuffix(" (already on the base)")
        print(f"{finding.location}: {finding.rule} {message}")
    if found:
        print(f"planegate: {len(found)} violations in {len(files)} property-plane files")
        return exitcodes.HUNKS
    print(f"planegate: {len(files)} property-plane files, no violations")
    return exitcodes.PASS


def cmd_explain(args: argparse.Namespace) -> int:
    from planegate.exitcodes import describe
    from planegate.rules import RULES

    what = args.what.strip()
    rule = RULES.get(what.upper())
    if rule is not None:
        print(f"{rule.id} ({rule.step.value}, exit {rule.step.exit_code}): {rule.title}")
        print(f"why: {rule.why}")
        print(f"fix: {rule.how_to_fix}")
        print(f"agent may fix: {'yes' if rule.agent_may_fix else 'no'}")
        print(f"more: docs/findings.md#{rule.id.lower()}")
        return exitcodes.PASS
    if what.isdigit() and (entry := describe(int(what))) is not None:
        print(f"exit {entry.code} ({entry.name}): {entry.meaning}; owner: {entry.owner}")
        print("more: docs/exit-codes.md")
        return exitcodes.PASS
    raise UsageError(
        f"explain {what!r}: not a rule id (PG201) or an exit code",
        "see docs/findings.md and docs/exit-codes.md",
    )


def cmd_action(args: argparse.Namespace) -> int:
    from planegate.commands import action as action_phases

    return action_phases.main(_progress(args))


def cmd_demo(args: argparse.Namespace) -> int:
    from planegate import demo

    return demo.run(_progress(args))


def cmd_sweep(args: argparse.Namespace) -> int:
    from planegate.freeze import ledger, sweep_run

    root = _root(args)
    if args.runs < 1:
        raise UsageError(f"--runs {args.runs}: a sweep needs at least one run")
    options = sweep_run.SweepOptions(
        root=root,
        commit=args.commit,
        runs=args.runs,
        seed=args.seed,
        config_path=args.config,
        owner=args.owner,
    )
    outcome = sweep_run.sweep(options, _progress(args))
    print(
        f"planegate: swept {outcome.commit[:12]}: {outcome.suite_size} tests, "
        f"{len(outcome.runs)} runs, seed {outcome.seed}"
    )
    if outcome.trouble is not None:
        print(f"planegate: environment trouble, nothing proposed: {outcome.trouble}")
        return exitcodes.UNAVAILABLE
    proposals = args.proposals if args.proposals.is_absolute() else root / args.proposals
    proposals.parent.mkdir(parents=True, exist_ok=True)
    proposals.write_text(
        "".join(ledger.render_event(p.event) + "\n" for p in outcome.proposals), "utf-8"
    )
    for proposal in outcome.proposals:
        event = proposal.event
        print(
            f"propose freeze {event.nodeid}: {event.flake_class} "
            f"(confidence {event.class_confidence:.2f}), failed {event.failures}/{event.runs} "
            f"in mode {event.mode}; evidence {proposal.bundle_path.relative_to(root)}"
        )
    for nodeid in outcome.decision.over_limit:
        print(f"not proposed (at most 10 a sweep): {nodeid}")
    for nodeid in outcome.decision.already_frozen:
        print(f"already frozen: {nodeid}")
    print(f"planegate: {len(outcome.proposals)} proposals -> {proposals}")
    if args.write and outcome.proposals:
        cfg = load_worktree_config(root, args.config)
        sweep_run.append_events(root / cfg.ledger, [p.event for p in outcome.proposals], cfg.ledger)
        print(f"planegate: appended {len(outcome.proposals)} freeze events to {cfg.ledger}")
    for nodeid in outcome.base_broken:
        print(f"base broken: {nodeid} failed every run, and alone")
    if outcome.base_broken:
        count = len(outcome.base_broken)
        print(
            f"planegate: the base is broken: {count} test{'s' if count != 1 else ''} "
            "failed on every run (fix them; a broken test is never frozen)",
            file=sys.stderr,
        )
        return exitcodes.BASE_BROKEN
    return exitcodes.PASS


def _review_by(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--review-by {text!r}: expected a date (YYYY-MM-DD)") from None


def cmd_freeze(args: argparse.Namespace) -> int:
    from planegate.freeze import ledger, sweep_run
    from planegate.repo.hashing import bytes_sha256

    root = _root(args)
    cfg = load_worktree_config(root, args.config)
    evidence = args.evidence if args.evidence.is_absolute() else root / args.evidence
    obj, digest = sweep_run.read_bundle(evidence)
    if obj.get("nodeid") != args.nodeid:
        raise InputDataError(
            f"{args.evidence}: the evidence is about {obj.get('nodeid')!r}, not {args.nodeid!r}"
        )
    event = sweep_run.freeze_event(
        obj,
        digest,
        args.owner,
        args.note,
        _review_by(args.review_by),
        flake_class=args.flake_class,
        confidence=args.confidence,
    )
    if isinstance(event, ledger.EventErrors):
        raise UsageError(f"cannot freeze {args.nodeid}: {'; '.join(event.messages)}")
    stored = root / sweep_run.EVIDENCE_DIR / f"{digest}.json"
    if not stored.is_file() or bytes_sha256(stored.read_bytes()) != digest:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(evidence.read_bytes())
    sweep_run.append_events(root / cfg.ledger, [event], cfg.ledger)
    print(
        f"planegate: froze {args.nodeid} ({event.flake_class}, owner {event.owner}); "
        f"a thaw needs {event.thaw_runs_required} clean runs"
    )
    return exitcodes.PASS


def cmd_thaw(args: argparse.Namespace) -> int:
    from planegate.freeze import sweep_run

    root = _root(args)
    load_worktree_config(root, args.config)  # a clear error before any run
    options = sweep_run.ThawOptions(
        root=root,
        nodeid=args.nodeid,
        commit=args.commit,
        seed=args.seed,
        owner=args.owner,
        note=args.note,
        config_path=args.config,
    )
    outcome = sweep_run.thaw(options, _progress(args))
    evidence = outcome.bundle_path.relative_to(root)
    if outcome.failures:
        print(
            f"planegate: {args.nodeid} failed on run {outcome.runs}: renewed (still frozen); "
            f"evidence {evidence}"
        )
    else:
        print(f"planegate: {args.nodeid} passed {outcome.runs} runs: thawed; evidence {evidence}")
    return exitcodes.PASS
