"""`planegate init`: propose a planegate.yml from pytest's own collection of the suite.

Collect (as the gate will), classify each nodeid (Hypothesis `@given` -> property, else
fixture), plan each file, and with `--split` move the property tests of mixed files into
sibling `_props` files, checked by collecting again (a split that does not give back the same
nodeids, each in its plane, is undone and the file is listed nodeid by nodeid). Collecting is
the caller's (`init/collect.py`): this module runs no project code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from planegate.config import load as config_mod
from planegate.errors import ConfigError
from planegate.init.propose import (
    FIXTURE,
    NODEIDS,
    PROPERTY,
    CollectedItem,
    Collection,
    FilePlan,
    Proposal,
    plan_file,
)
from planegate.init.propose_ast import split_nodeid
from planegate.init.split import Split, props_path, split_source
from planegate.progress import QUIET, Progress

Collect = Callable[[tuple[str, ...]], Collection]  # targets (default: testpaths) -> collection
PYTHON_FILES = ("test_*.py", "*_test.py")  # pytest's default `python_files`


@dataclass(frozen=True)
class InitOptions:
    root: Path
    targets: tuple[str, ...] = ()  # default: pytest's own (testpaths, else the root)
    plugins: tuple[str, ...] = ("hypothesis",)
    split: bool = False
    trace: bool = True  # the collection is a traced run of the suite (init/discover.py)


def collecting_config(
    plugins: tuple[str, ...], python_files: object, targets: tuple[str, ...]
) -> config_mod.Config:
    """The configuration init collects under, before it knows the planes: the plugins, and a
    fixture plane of every file pytest would collect (its `python_files` and the named
    files), so the traced run tells the test side's reads from production code's."""
    if isinstance(python_files, str):
        globs = python_files.split()
    elif isinstance(python_files, list):
        globs = [str(glob) for glob in python_files]
    else:
        globs = list(PYTHON_FILES)
    paths = [*globs, *(target for target in targets if target.endswith(".py"))]
    data = {
        "version": 1,
        "planes": {"property": {}, "fixture": {"paths": paths}, "freeze": {}},
        "pytest": {"plugins": list(plugins)},
    }
    return config_mod.parse(json.dumps(data), "planegate.yml")  # JSON is YAML


def propose(options: InitOptions, collect: Collect, progress: Progress = QUIET) -> Proposal:
    where = ", ".join(options.targets) or "pytest's testpaths"
    traced = "and running it traced (the files tests read)"
    progress.step("init", f"collecting {where} {traced if options.trace else '(--collect-only)'}")
    collection = collect(options.targets)
    if not collection.items:
        raise _no_tests(options, collection)
    by_file = collection.by_file()
    progress.step("init", f"{len(collection.items)} tests in {len(by_file)} files; classifying")
    plans = {
        path: plan_file(path, items, _read(options.root, path)) for path, items in by_file.items()
    }
    notes = [_error_note(nodeid, message) for nodeid, message in collection.errors]
    proposal = Proposal(plugins=options.plugins)
    if options.split:
        notes += _split_mixed(options, plans, collect, progress, proposal.renamed)
    for path in sorted(plans):
        proposal.add(plans[path])
    proposal.notes += [*notes, _summary(plans, options.split)]
    return proposal


class NoTests(ConfigError):
    """pytest collected no test: there is nothing to classify (exit 78)."""


def _no_tests(options: InitOptions, collection: Collection) -> NoTests:
    """A suite with no test to classify: a configuration would gate nothing (exit 78)."""
    where = ", ".join(options.targets) or "pytest's testpaths (or the repository root)"
    broken = ""
    if collection.errors:
        nodeid, message = collection.errors[0]
        count = len(collection.errors)
        broken = f"; {count} files could not be collected: {_error_note(nodeid, message)}"
    return NoTests(
        f"{options.root}: pytest collected no tests in {where}; a planegate.yml would gate "
        f"nothing{broken}",
        "add test_*.py files pytest collects, or name the tests with --tests PATH; "
        "then run `planegate init` again",
    )


def _read(root: Path, path: str) -> str | None:
    try:
        return (root / path).read_text("utf-8", "replace")
    except OSError:
        return None


def _error_note(nodeid: str, message: str) -> str:
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "collection error"
    return (
        f"{nodeid or 'session'}: could not be collected ({last}); not in the proposal "
        "(the gate reports PG206 until it is)"
    )


def _summary(plans: dict[str, FilePlan], split: bool) -> str:
    count = {PROPERTY: 0, FIXTURE: 0}
    for plan in plans.values():
        count[PROPERTY] += len(plan.property_ids)
        count[FIXTURE] += len(plan.fixture_ids)
    listed = [plan for plan in plans.values() if plan.mode == NODEIDS and plan.test_file]
    text = (
        f"{sum(count.values())} tests in {len(plans)} files: {count[PROPERTY]} property, "
        f"{count[FIXTURE]} fixture; {len(listed)} files listed nodeid by nodeid"
    )
    if any(plan.mixed for plan in listed) and not split:
        text += " (`planegate init --split` moves the property tests of mixed files)"
    return text


def _split_mixed(
    options: InitOptions,
    plans: dict[str, FilePlan],
    collect: Collect,
    progress: Progress,
    renamed: dict[str, str],
) -> list[str]:
    """Split each mixed test file; `renamed` gets the nodeids of the splits that stand."""
    notes: list[str] = []
    written: dict[str, tuple[str, str, Split]] = {}  # path -> (props path, old text, split)
    for plan in [p for p in plans.values() if p.mode == NODEIDS and p.mixed and p.test_file]:
        target = props_path(plan.path)
        old = _read(options.root, plan.path) or ""
        moved = {split_nodeid(nodeid)[1] for nodeid in plan.property_ids}
        result = (
            f"{target} exists already"
            if (options.root / target).exists()
            else split_source(old, moved, plan.path)
        )
        if isinstance(result, str):
            notes.append(f"{plan.path}: not split: {result}")
            continue
        (options.root / plan.path).write_text(result.remaining, "utf-8")
        (options.root / target).write_text(result.props, "utf-8")
        written[plan.path] = (target, old, result)
    if not written:
        return notes
    progress.step("init", f"collecting again to check {len(written)} split files")
    extra = tuple(target for target, _, _ in written.values()) if options.targets else ()
    again = collect(options.targets + extra)
    for path, (target, old, result) in sorted(written.items()):
        problem = _check(plans[path], target, again, result)
        if problem is None:
            notes.append(_moved_note(plans[path], target))
            renamed.update(_moves(plans[path], target, again))
            items = again.by_file()
            plans[path] = plan_file(path, items[path], result.remaining)
            plans[target] = plan_file(target, items[target], result.props)
        else:
            (options.root / path).write_text(old, "utf-8")
            (options.root / target).unlink()
            notes.append(f"{path}: split undone: {problem}")
    return notes


def _moves(plan: FilePlan, target: str, again: Collection) -> dict[str, str]:
    """Each moved nodeid, as collected before the split, to its nodeid in the new file."""
    prefix = target + "::"
    moved = [i.nodeid for i in again.items if i.nodeid.startswith(prefix)]
    return {plan.path + "::" + nodeid[len(prefix) :]: nodeid for nodeid in moved}


def _moved_note(plan: FilePlan, target: str) -> str:
    return (
        f"{plan.path}: split: {len(plan.property_ids)} property tests moved to {target} "
        "(review the change with `git diff` and commit it)"
    )


def _check(plan: FilePlan, target: str, again: Collection, result: Split) -> str | None:
    """The split holds when collecting again gives the same nodeids, each file in one plane."""
    for nodeid, message in again.errors:
        if nodeid in (plan.path, target):
            return f"{nodeid} does not collect: {message.strip().splitlines()[-1:]}"
    items = again.by_file()
    remaining: list[CollectedItem] = items.get(plan.path, [])
    moved: list[CollectedItem] = items.get(target, [])
    prefix = target + "::"
    back = {plan.path + "::" + i.nodeid[len(prefix) :] for i in moved}
    if back != set(plan.property_ids) or {i.nodeid for i in remaining} != set(plan.fixture_ids):
        return f"collecting again gave {len(back)} + {len(remaining)} tests, not the same nodeids"
    if plan_file(target, moved, result.props).mode != PROPERTY:
        return f"{target} would not be a property file"
    if plan_file(plan.path, remaining, result.remaining).mode != FIXTURE:
        return f"{plan.path} would not be a fixture file"
    return None
