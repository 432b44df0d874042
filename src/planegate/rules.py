"""The rule catalogue: stable ids, what each means, and who may fix it (docs/findings.md)."""

from __future__ import annotations

from dataclasses import dataclass

from planegate.findings import Step


@dataclass(frozen=True)
class Rule:
    id: str
    step: Step
    title: str
    why: str
    how_to_fix: str
    agent_may_fix: bool


def _rule(id: str, step: Step, title: str, why: str, fix: str, agent: bool = False) -> Rule:
    return Rule(id, step, title, why, fix, agent)


_I, _E, _L, _H, _P = Step.INVENTORY, Step.EVIDENCE, Step.LEDGER, Step.HUNKS, Step.PLANES

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        # inventory (exit 2)
        _rule(
            "PG201",
            _I,
            "unclassified nodeid",
            "A test no plane claims would vote without anyone having said what it proves.",
            "Add its file to a plane's paths (or the nodeid to a plane's nodeids) in "
            "planegate.yml, in a change reviewed by the plane map's owner.",
        ),
        _rule(
            "PG202",
            _I,
            "nodeid in two planes",
            "A test must answer exactly one question; two planes give it two policies.",
            "Remove the overlap between the planes' paths/nodeids in planegate.yml.",
        ),
        _rule(
            "PG203",
            _I,
            "mixed file",
            "A file with property and fixture tests cannot be locked by one policy.",
            "Split the file: move each test to a file of its own plane.",
        ),
        _rule(
            "PG204",
            _I,
            "plane changed between base and head",
            "Moving a test to another plane changes what evidence it gives.",
            "Keep the test where it is, or move it in a change the plane map's owner makes.",
        ),
        _rule(
            "PG205",
            _I,
            "nodeid vanished",
            "A test on main that the patch no longer collects stops giving evidence.",
            "Restore the test or the production code it collects from (parametrize data, imports).",
        ),
        _rule(
            "PG206",
            _I,
            "collection failed",
            "Tests that cannot be collected give no evidence at all.",
            "Fix the import or syntax error the collection output names.",
            True,
        ),
        # evidence (exit 3)
        _rule(
            "PG301",
            _E,
            "protected path changed",
            "The evidence that votes must be main's; a patch that edits it grades itself.",
            "Revert the change to the protected file; an owner changes it in a separate PR.",
        ),
        _rule(
            "PG302",
            _E,
            "fixture manifest mismatch",
            "A locked data file whose bytes differ from the manifest is no longer main's evidence.",
            "Revert the data file; only a person runs `planegate lock` to change the lock.",
        ),
        _rule(
            "PG303",
            _E,
            "digest mismatch",
            "The digest artifact from main does not match main's files recomputed from git.",
            "Rerun `planegate digest` on main; check who uploaded the artifact.",
        ),
        _rule(
            "PG304",
            _E,
            "protected path changed (review)",
            "A non-agent change to protected evidence is listed for the owner's review.",
            "Ask the owner named here to review the change.",
        ),
        _rule(
            "PG305",
            _E,
            "pytest configuration changed",
            "The pytest section decides what runs and how; the patch must not change it.",
            "Revert the change to the pytest configuration table.",
        ),
        # ledger (exit 4)
        _rule(
            "PG401",
            _L,
            "invalid ledger line",
            "The ledger is the only record of why a test does not vote.",
            "Fix the line so it is one JSON event with every required field.",
        ),
        _rule(
            "PG402",
            _L,
            "ledger rewritten",
            "The ledger is append-only: editing or deleting a line rewrites history.",
            "Restore the base's lines; append a new event instead.",
        ),
        _rule(
            "PG403",
            _L,
            "replay due",
            "A freeze past its review_by date must be replayed: a date never thaws a test.",
            "Run `planegate thaw NODEID` (or record a renewal with new evidence).",
        ),
        _rule(
            "PG404",
            _L,
            "too many frozen",
            "A suite with more than the configured share (default 5 %) frozen no longer "
            "measures much: the freeze plane is hiding failures instead of quarantining noise.",
            "Thaw or fix frozen tests (`planegate thaw NODEID`), or have the freeze plane's "
            "owner raise planes.freeze.max_fraction in planegate.yml.",
        ),
        # hunks (exit 5)
        _rule(
            "PG501",
            _H,
            "skip or xfail added",
            "A skip turns a failing test green without the code being right.",
            "Remove the skip/xfail; fix the production code, or ask the owner to freeze the "
            "test in the ledger.",
        ),
        # planes (exit 1)
        _rule(
            "PG101",
            _P,
            "test failed",
            "Main's evidence does not hold against the patch's production code.",
            "Fix the production code so the test passes; do not edit the test.",
            True,
        ),
        _rule(
            "PG102",
            _P,
            "test did not pass",
            "Skipped, xfailed, deselected or missing tests count as failed: only a pass is "
            "evidence.",
            "Make the test run and pass against your production code.",
            True,
        ),
        _rule(
            "PG104",
            _P,
            "result channel compromised",
            "The gate's own canary tests were misreported: the run's results cannot be trusted.",
            "Remove whatever in the patch rewrites test reports (hooks, plugins, imports of "
            "pytest in production code).",
        ),
        _rule(
            "PG103",
            _P,
            "test run did not finish",
            "A run that ends without its closing record (crash, os._exit, timeout) proves nothing.",
            "Find what ended the run early (the captured output says) and fix it.",
            True,
        ),
        _rule(
            "PG306",
            _E,
            "digest artifact refused",
            "Only a digest made by a push to the default branch of this repository is main's "
            "evidence; one from a pull request or fork run could have been made by the patch.",
            "Nothing to change in the patch; the maintainers check which workflow uploads "
            "`planegate-digest` and that it runs only on pushes to the default branch.",
        ),
        _rule(
            "PG307",
            _E,
            "no digest artifact: recomputed",
            "Without main's artifact the gate recomputes the digest at the merge base; the "
            "check still runs, but nothing vouches for the artifact's history.",
            "Run `planegate digest` on every push to the default branch and upload it as the "
            "`planegate-digest` artifact.",
        ),
    )
}


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]


def catalogue_markdown() -> str:
    """docs/findings.md: one anchor per rule, grouped by step (`make docs` writes it)."""
    lines = [
        "# Findings catalogue",
        "",
        "Every finding names a rule with a stable id: `PG` + the digit of its step's exit code",
        "(`PG2xx` inventory, `PG3xx` evidence, `PG4xx` ledger, `PG5xx` hunks, `PG1xx` planes).",
        "`planegate explain PGxxx` prints the same text. This file is generated from",
        "`src/planegate/rules.py` by `make docs`; a test keeps the two in step.",
    ]
    for step in Step:
        rules = sorted((r for r in RULES.values() if r.step is step), key=lambda r: r.id)
        lines += ["", f"## Step: {step.value} (exit {step.exit_code})", ""]
        for entry in rules:
            may = "yes (production code)" if entry.agent_may_fix else "no (protected evidence)"
            lines += [
                f"### {entry.id}",
                "",
                f"**{entry.title}.** {entry.why}",
                "",
                f"- How to fix: {entry.how_to_fix}",
                f"- May the patch's author fix it in the same patch: {may}",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"
