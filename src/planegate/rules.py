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
        _rule(
            "PG502",
            _H,
            "assertion removed",
            "A test with fewer checks passes more patches; on an agent's patch the removed "
            "assert is usually the one that failed.",
            "Restore the assert; if the expected value really changed, a person changes it in "
            "a reviewed PR.",
        ),
        _rule(
            "PG503",
            _H,
            "assertion made vacuous",
            "`assert True`, `x or True`, comparing a value to itself or `is not None` in place "
            "of an equality still counts as an assert but can no longer fail.",
            "Restore the value check the assert made before the patch.",
        ),
        _rule(
            "PG504",
            _H,
            "assertion made dead",
            "An assert after an early return, under `if False:`, behind an environment "
            "variable or inside `except AssertionError: pass` never fails.",
            "Move the assert back onto the path the test always runs; remove the guard.",
        ),
        _rule(
            "PG505",
            _H,
            "pytest.raises broadened or match removed",
            "Expecting `Exception` instead of the specific error, or dropping `match=`, lets "
            "any failure satisfy the test.",
            "Restore the specific exception type and the match pattern.",
        ),
        _rule(
            "PG506",
            _H,
            "tolerance loosened",
            "A raised `rel`/`abs` in pytest.approx or math.isclose accepts the wrong number.",
            "Restore the tolerance; fix the computation instead.",
        ),
        _rule(
            "PG507",
            _H,
            "expected value changed in a fixture-plane test",
            "Fixture-plane tests hold locked expected values; rewriting them to match new "
            "output grades the patch by itself.",
            "Restore the expected value; its owner changes it in a separate, reviewed PR.",
        ),
        _rule(
            "PG508",
            _H,
            "parametrize cases removed",
            "Each case is evidence; removing the failing case hides the failure.",
            "Restore the removed cases.",
        ),
        _rule(
            "PG509",
            _H,
            "test deleted",
            "A deleted test gives no evidence at all.",
            "Restore the test; a person removes tests in a reviewed PR.",
        ),
        _rule(
            "PG510",
            _H,
            "test no longer collected",
            "A test renamed to `check_...` or `..._test`, or switched off with `__test__ = "
            "False`, still reads like a test but never runs.",
            "Restore a collected name (`test_...` in a `Test...` class without `__init__`).",
        ),
        _rule(
            "PG511",
            _H,
            "async test without an async plugin",
            "Without pytest-asyncio or anyio pytest does not run `async def` tests: they "
            "never fail.",
            "Keep the test synchronous, or add the async plugin to the allowed plugins in a "
            "reviewed change.",
        ),
        _rule(
            "PG512",
            _H,
            "test shadowed by a duplicate name",
            "A second definition with the same name replaces the first, which silently stops "
            "running.",
            "Give each test its own name.",
        ),
        _rule(
            "PG513",
            _H,
            "Hypothesis example budget lowered",
            "Fewer examples find fewer counterexamples; the budget is part of the evidence.",
            "Restore max_examples (and stateful_step_count).",
        ),
        _rule(
            "PG514",
            _H,
            "Hypothesis assume() or .filter() added",
            "A new assumption can discard exactly the inputs that fail.",
            "Remove the assumption, or narrow the input in a reviewed change with a reason.",
        ),
        _rule(
            "PG515",
            _H,
            "Hypothesis @example removed",
            "Explicit examples are usually past counterexamples; removing one reopens the bug.",
            "Restore the @example.",
        ),
        _rule(
            "PG516",
            _H,
            "Hypothesis strategy narrowed",
            "`st.just`, a one-value `sampled_from` or tightened bounds stop generating the "
            "inputs that fail.",
            "Restore the strategy's range.",
        ),
        _rule(
            "PG517",
            _H,
            "Hypothesis phases limited",
            "Without the generate (or explicit, reuse, target) phase the test checks less.",
            "Remove the `phases=` restriction.",
        ),
        _rule(
            "PG518",
            _H,
            "Hypothesis seed, derandomize, database or profile changed",
            "Choosing a seed or profile can pick a run that happens to pass; the gate runs "
            "with a frozen seed of its own.",
            "Revert the seed, derandomize, database or profile change.",
        ),
        _rule(
            "PG519",
            _H,
            "state-machine invariant removed",
            "An invariant is checked after every step; removing it removes that check everywhere.",
            "Restore the @invariant method.",
        ),
        _rule(
            "PG520",
            _H,
            "conftest hook added",
            "A hook can deselect, skip or rewrite the outcome of any test.",
            "Remove the hook; conftest changes go through the owner in a reviewed PR.",
        ),
        _rule(
            "PG521",
            _H,
            "collect_ignore extended",
            "Ignored paths are never collected, so their tests never fail.",
            "Remove the new collect_ignore entry.",
        ),
        _rule(
            "PG522",
            _H,
            "pytest_plugins extended",
            "A plugin loaded from the tests can change how every test runs or reports.",
            "Remove the plugin; allowed plugins are set in planegate.yml.",
        ),
        _rule(
            "PG523",
            _H,
            "autouse fixture skips or patches",
            "An autouse fixture runs for every test it reaches: one that skips or "
            "monkeypatches the code under test weakens them all.",
            "Remove the fixture, or make it opt-in and explain it in a reviewed PR.",
        ),
        _rule(
            "PG524",
            _H,
            "line-based check (file does not parse)",
            "A file that does not parse cannot be compared by its syntax tree; the line-based "
            "check is weaker.",
            "Fix the syntax error so the full analysis can run.",
        ),
        _rule(
            "PG525",
            _H,
            "conftest hook changed (review)",
            "An existing hook's new body can change collection or reporting.",
            "Ask the conftest's owner to review the hook change.",
        ),
        _rule(
            "PG105",
            _P,
            "property test below its example budget",
            "A property test that runs fewer Hypothesis examples than the plane's floor proves "
            "less than main's evidence promises (settings profiles can be loaded from anywhere).",
            "Remove whatever lowers max_examples (settings.load_profile, settings objects in "
            "production code); the floor is planes.property.max_examples.",
        ),
        _rule(
            "PG106",
            _P,
            "fixture test insensitive to its data",
            "A fixture test that still passes with one byte of its locked file changed does not "
            "check that file: something makes every comparison succeed.",
            "Find what makes the comparison always true (often an __eq__ in production code) "
            "and remove it.",
        ),
        _rule(
            "PG550",
            _H,
            "production code imports the test harness",
            "Code under test that imports pytest or hypothesis can skip, exit or reconfigure "
            "the run that judges it.",
            "Remove the import from production code; test helpers belong under tests/.",
        ),
        _rule(
            "PG551",
            _H,
            "production code reads pytest's environment",
            "PYTEST_CURRENT_TEST and friends exist only under pytest: code that reads them "
            "behaves differently when tested.",
            "Remove the lookup; production behaviour must not depend on being tested.",
        ),
        _rule(
            "PG552",
            _H,
            "production code looks the harness up in sys.modules",
            "Finding pytest in sys.modules tells the code it is being tested.",
            "Remove the sys.modules lookup.",
        ),
        _rule(
            "PG553",
            _H,
            "production code inspects its callers",
            "sys._getframe, inspect.stack and heap walks let code recognise a test caller or "
            "reach the runner's objects.",
            "Remove the stack or heap inspection; pass what the code needs as arguments.",
        ),
        _rule(
            "PG554",
            _H,
            "production code calls os._exit",
            "os._exit ends the process without the test session's closing record or cleanup.",
            "Use sys.exit / SystemExit in entry points; never exit from library code.",
        ),
        _rule(
            "PG555",
            _H,
            "atexit handler added",
            "An atexit handler runs after the test session and can rewrite how the process ends.",
            "Remove the handler, or release the resource explicitly.",
        ),
        _rule(
            "PG556",
            _H,
            "production code writes to builtins",
            "Replacing a builtin changes every module, the tests included.",
            "Remove the write; import what you need explicitly.",
        ),
        _rule(
            "PG557",
            _H,
            "pytest_plugins set in production code",
            "pytest_plugins asks pytest to load plugins the gate did not allow.",
            "Remove it; plugins are allowed in planegate.yml by the owner.",
        ),
        _rule(
            "PG558",
            _H,
            "pytest11 entry point added",
            "A pytest11 entry point loads the patch's code as a pytest plugin wherever the "
            "package is installed (the gate turns autoload off; other runs do not).",
            "Remove the entry point from the packaging file.",
        ),
        _rule(
            "PG559",
            _H,
            "__eq__ returns a constant",
            "An __eq__ that returns True for anything makes every assert == pass.",
            "Compare the fields that matter, and return NotImplemented for other types.",
        ),
        _rule(
            "PG560",
            _H,
            "field taken out of equality",
            "field(compare=False) makes objects that differ in the field compare equal.",
            "Keep the field compared, or explain the change to the test owner.",
        ),
        _rule(
            "PG561",
            _H,
            "production code refers to fixture evidence",
            "Production code that reads the fixture plane's locked files can copy the expected "
            "answers instead of computing them.",
            "Remove the reference; package data lives in the package.",
        ),
        _rule(
            "PG580",
            _H,
            "property test uses wall-clock time",
            "A property that reads the clock does not hold the same way on every run.",
            "Pass the time in as a generated or fixed value.",
        ),
        _rule(
            "PG581",
            _H,
            "property test uses the network",
            "Sockets and HTTP clients make a property depend on the world outside the test.",
            "Test against an in-memory fake or a local fixture instead.",
        ),
        _rule(
            "PG582",
            _H,
            "property test uses the process-wide RNG",
            "random.random() and numpy.random.* module functions share state across tests: "
            "results depend on test order.",
            "Use a seeded generator (random.Random(seed), numpy.random.default_rng(seed)) or "
            "let Hypothesis generate the value.",
        ),
        _rule(
            "PG583",
            _H,
            "unseeded generator in a property test",
            "random.Random() or default_rng() without a seed differs on every run.",
            "Pass a fixed seed.",
        ),
        _rule(
            "PG107",
            _P,
            "test run tampered with",
            "While main's tests ran, code of the patch walked the heap or the stack, patched the "
            "harness or builtins, ran code that is not a tracked source file, read another "
            "process's /proc, wrote into the interpreter, or wrote to the result stream beside "
            "the harness: none of the run's results can be trusted (docs/runner.md).",
            "Remove what the message names (the file and line are given when known); production "
            "code needs none of it to do its job.",
            True,
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
        "The test-hunk rules have before/after examples in [findings-hunks.md](findings-hunks.md).",
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
