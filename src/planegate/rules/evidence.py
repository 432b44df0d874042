"""The evidence step's rules (exit 3): protected paths, the fixture manifest, the digest."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG301",
        Step.EVIDENCE,
        "protected path changed",
        "The evidence that votes must be main's; a patch that edits it grades itself.",
        "Revert the change to the protected file; an owner changes it in a separate PR.",
    ),
    Rule(
        "PG302",
        Step.EVIDENCE,
        "fixture manifest mismatch",
        "A locked data file whose bytes differ from the manifest is no longer main's evidence.",
        "Revert the data file; only a person runs `planegate lock` to change the lock.",
    ),
    Rule(
        "PG303",
        Step.EVIDENCE,
        "digest mismatch",
        "The digest artifact from main does not match main's files recomputed from git.",
        "Rerun `planegate digest` on main; check who uploaded the artifact.",
    ),
    Rule(
        "PG304",
        Step.EVIDENCE,
        "protected path changed (review)",
        "A non-agent change to protected evidence is listed for the owner's review.",
        "Ask the owner named here to review the change.",
    ),
    Rule(
        "PG305",
        Step.EVIDENCE,
        "pytest configuration changed",
        "The pytest section decides what runs and how; the patch must not change it.",
        "Revert the change to the pytest configuration table.",
    ),
    Rule(
        "PG306",
        Step.EVIDENCE,
        "digest artifact refused",
        "Only a digest made by a push to the default branch of this repository is main's "
        "evidence; one from a pull request or fork run could have been made by the patch.",
        "Nothing to change in the patch; the maintainers check which workflow uploads "
        "`planegate-digest` and that it runs only on pushes to the default branch.",
    ),
    Rule(
        "PG307",
        Step.EVIDENCE,
        "no digest artifact: recomputed",
        "Without main's artifact the gate recomputes the digest at the merge base; the "
        "check still runs, but nothing vouches for the artifact's history.",
        "Run `planegate digest` on every push to the default branch and upload it as the "
        "`planegate-digest` artifact.",
    ),
    Rule(
        "PG308",
        Step.EVIDENCE,
        "unlocked evidence changed",
        "A scoring test read this file at run time (traced from the test side) and the patch "
        "changed it, though nothing locks it: the test would grade the patch against the "
        "patch's own expected values. The gate reran those tests with main's bytes.",
        "Revert the file. Its owner locks it: add it to planes.fixture.data and run "
        "`planegate lock` (or name it in `protected`); `evidence.exclude` takes it out.",
    ),
    Rule(
        "PG309",
        Step.EVIDENCE,
        "changed path with hidden characters (review)",
        "A file name holding a control or invisible character (a newline, a tab, a "
        "direction override) reads as another name, or as two, in logs and reviews; the gate "
        "analyses it like any other file and shows its name escaped.",
        "Rename the file to printable characters.",
    ),
)
