"""The planes step's rules (exit 1): main's evidence run against the patch's production code."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.model import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG101",
        Step.PLANES,
        "test failed",
        "Main's evidence does not hold against the patch's production code.",
        "Fix the production code so the test passes; do not edit the test.",
        True,
    ),
    Rule(
        "PG102",
        Step.PLANES,
        "test did not pass",
        "Skipped, xfailed, deselected or missing tests count as failed: only a pass is evidence.",
        "Make the test run and pass against your production code.",
        True,
    ),
    Rule(
        "PG104",
        Step.PLANES,
        "result channel compromised",
        "The gate's own canary tests were misreported: the run's results cannot be trusted.",
        "Remove whatever in the patch rewrites test reports (hooks, plugins, imports of "
        "pytest in production code).",
    ),
    Rule(
        "PG103",
        Step.PLANES,
        "test run did not finish",
        "A run that ends without its closing record (crash, os._exit, timeout) proves nothing.",
        "Find what ended the run early (the captured output says) and fix it.",
        True,
    ),
    Rule(
        "PG105",
        Step.PLANES,
        "property test below its example budget",
        "A property test that runs fewer Hypothesis examples than the plane's floor proves "
        "less than main's evidence promises (settings profiles can be loaded from anywhere).",
        "Remove whatever lowers max_examples (settings.load_profile, settings objects in "
        "production code); the floor is planes.property.max_examples.",
    ),
    Rule(
        "PG106",
        Step.PLANES,
        "fixture test insensitive to its data",
        "A fixture test that still passes with one byte of its locked file changed does not "
        "check that file: something makes every comparison succeed.",
        "Find what makes the comparison always true (often an __eq__ in production code) "
        "and remove it.",
    ),
    Rule(
        "PG107",
        Step.PLANES,
        "test run tampered with",
        "While main's tests ran, code of the patch walked the heap or the stack, patched the "
        "harness or builtins, ran code that is not a tracked source file, read another "
        "process's /proc, wrote into the interpreter, or wrote to the result stream beside "
        "the harness: none of the run's results can be trusted (docs/runner.md).",
        "Remove what the message names (the file and line are given when known); production "
        "code needs none of it to do its job.",
        True,
    ),
    Rule(
        "PG108",
        Step.PLANES,
        "patch does not merge onto the base",
        "The gate runs main's newest evidence against the patch merged onto the base's tip; "
        "a merge that conflicts leaves nothing to run, and passing it would skip main's "
        "newest tests.",
        "Rebase the branch onto the base (or merge the base into it), resolve the conflicts "
        "and push.",
        True,
    ),
    Rule(
        "PG110",
        Step.PLANES,
        "code under test not imported from the patch's tree",
        "A module of the project's own packages came from outside the tree under test (an "
        "installed copy in site-packages, or a path put first at run time): the tests did not "
        "run the patch's code, so their passes prove nothing about it.",
        "Make the tree's package roots hold the package: `src/`, the tree's root, or the "
        "pytest `pythonpath` option; install the project's dependencies only (docs/runner.md).",
    ),
    Rule(
        "PG111",
        Step.PLANES,
        "failing on main too",
        "A scoring test that fails on the patch failed on the base as well, rerun in the same "
        "environment and mode: the base is broken, and the patch is not blamed (exit 6 when "
        "nothing else failed).",
        "The plane's owner fixes the test or the base's code, or freezes the test for a "
        "classified reason (`planegate freeze`); the repro command reruns it on the base.",
    ),
)
