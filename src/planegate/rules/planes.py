"""The planes step's rules (exit 1): main's evidence run against the patch's production code."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

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
        "classified reason (`planegate freeze`); the repro command reruns it on the base. "
        "When it passes under plain pytest in a checkout of main, it depends on the "
        "environment (a generated file git does not track, time-zone data): `planegate "
        "sweep` on main proposes an `env` freeze with that evidence. When it fails under "
        "plain pytest too but main passes where the project's own CI runs (another "
        "interpreter or platform), `planegate sweep --broken-here` on main proposes one "
        "tied to this environment's fingerprint.",
    ),
    Rule(
        "PG112",
        Step.PLANES,
        "main's own code did what tampering does (review)",
        "The audit hook saw a frame walk, code compiled at run time or a class attribute "
        "replaced, raised by a line main already had and the patch did not change (attrs "
        "generates methods with exec and names classes after their caller's module), or the "
        "harness checks saw a change that main's own run of the same tests shows too, the "
        "same object from the same file (a dependency that appends its import finder to "
        "sys.meta_path): main's behaviour, not the patch's. The same event from a line the "
        "patch adds, a change main's run does not show, or one whose code (the definition of "
        "the object put in, with what it uses of its module) or any file that code read "
        "during the run the patch changes, is PG107.",
        "Nothing to change in the patch; the code's owner reviews the line if it is new to them.",
    ),
    Rule(
        "PG113",
        Step.PLANES,
        "fixture test insensitive to its data on main too (review)",
        "A fixture test still passed with one byte of its locked file changed, and it passes "
        "with the same byte changed on main too, and with every byte changed it passes on the "
        "patch only where it passes on main: main's test does not check that byte (it reads "
        "the file as an input and looks at part of it, or main's comparison is already "
        "lenient). Main's state, not the patch's; a survivor main catches is PG106. A test "
        "main's digest shows passing with every byte of its files changed is reported from "
        "that record, without running it on the patch.",
        "Nothing to change in the patch; the fixture plane's owner makes the test check its "
        "data, or moves an input out of the locked goldens.",
    ),
    Rule(
        "PG120",
        Step.PLANES,
        "the fix does not generalise",
        "A test the patch makes pass (it fails on main) failed when its property ran with "
        "another seed and five times its example budget: the patch holds for the inputs the "
        "frozen seed draws, not for the property.",
        "Fix the production code for every input; the finding shows the counterexample and "
        "the command that reproduces it.",
        True,
    ),
    Rule(
        "PG121",
        Step.PLANES,
        "answer depends on call history",
        "A test the patch makes pass failed when it ran alone in a fresh process, twice in "
        "one process, or after the rest of its file in reverse order: the production code "
        "answers from state left by earlier calls (a call counter, a first-call flag), not "
        "from its input.",
        "Remove the state the answer depends on; a cache that only saves time (such as "
        "functools.lru_cache on a pure function) is fine.",
        True,
    ),
    Rule(
        "PG122",
        Step.PLANES,
        "answer depends on the test harness",
        "A test the patch makes pass failed when the probe called it plainly: Hypothesis' "
        "engine replaced by a loop over generated examples, pytest's and Hypothesis' "
        "modules out of sys.modules, no PYTEST_* variable, and no profile or trace hook of "
        "the code under test (one installed is a failure in itself). The production code "
        "recognises that it is being tested.",
        "Remove whatever inspects the environment, sys.modules, the recursion limit or the "
        "call stack; the code must give the same answer outside the tests.",
        True,
    ),
    Rule(
        "PG123",
        Step.PLANES,
        "comparison delegated to the patch's code",
        "A test the patch makes pass compares a builtin value with an object whose class, "
        "new or changed in the patch, overrides the comparison and changes its answer (a "
        "str subclass whose __eq__ ignores case, an int subclass that tolerates one unit, "
        "an __eq__ that is always true however it is written). The test's assert is "
        "checked with strict comparisons; pytest.approx operands too.",
        "Return plain builtin values (or a subclass that keeps the builtin's comparison) "
        "and fix the value itself.",
        True,
    ),
    Rule(
        "PG124",
        Step.PLANES,
        "flipped test not probed",
        "Every test the patch flips from failing on main to passing must be probed; the "
        "probe budget (pytest.probe_budget) ran out before this one was, so the gate "
        "cannot vouch for it.",
        "Raise pytest.probe_budget in main's planegate.yml, or make the flipped tests faster.",
    ),
    Rule(
        "PG125",
        Step.PLANES,
        "sampled canary passed with its function broken",
        "One of main's own scoring tests, chosen at random among those that passed, ran again "
        "in the same run with a production function it called directly broken (it returns "
        "a wrong value of its own type, or raises), and was reported passing, while main's "
        "code with the same break fails it or does not call that function at all. The run "
        "reports results the tests did not give (a forged or rewritten result stream), or the "
        "patch's code routes main's test differently from main's: either way the run's passes "
        "cannot be taken as evidence.",
        "Remove whatever rewrites or forges test results; if the patch reroutes the call on "
        "purpose, rerun the repro command and show a reviewer why the test still passes.",
    ),
    Rule(
        "PG126",
        Step.PLANES,
        "sampled test does not depend on the function it calls",
        "One of main's scoring tests still passes, on main's own code too, when a production "
        "function it calls directly is broken (a wrong value, or a raise): it catches the error or "
        "never uses the result, so it is weak evidence for that function. A warning for the "
        "plane's owner; the patch is not blamed.",
        "Make the test check what the function returns (no bare except, no "
        "pytest.raises(Exception) around the call), or accept it as it is.",
    ),
    Rule(
        "PG127",
        Step.PLANES,
        "sampled canary record missing",
        "The scoring run closed without its record of the sampled canaries (which of main's "
        "tests ran again with a function broken, and how they ended). The harness always "
        "sends it as the session ends; a stream written by other code that did not know the "
        "sample lacks it.",
        "Find what wrote the result stream or ended the session early and remove it.",
    ),
    Rule(
        "PG140",
        Step.PLANES,
        "sampled canaries had nothing to break",
        "Main's sampled tests passed in the scoring run, yet none called a production function "
        "that could be broken (a plain `def` of the tree, called straight from the test), "
        "while on main's code the same tests do. The patch took away what the spot check "
        "needs (functions wrapped in closures or made async, calls routed through objects it "
        "built), so nothing of the run was checked.",
        "Keep the functions main's tests call plain functions of the tree, or ask a reviewer "
        "to look at how the patch reroutes them.",
    ),
    Rule(
        "PG141",
        Step.PLANES,
        "main's sampled tests give the canaries nothing to break",
        "Main's sampled tests passed, but none calls a production function the sampled "
        "canaries can break, on main's own code too (they call C code, wrapped or async "
        "functions, or nothing of the tree directly): the run's results are not spot-checked. "
        "A warning for the plane's owner; the patch is not blamed.",
        "Have some scoring tests call the project's plain functions directly, or accept that "
        "the run is not spot-checked.",
    ),
    Rule(
        "PG145",
        Step.PLANES,
        "a compared value lies",
        "A value one of main's scoring tests compares in an assert (a plain assert or a "
        "unittest assert method) lies about equality: it equals a fresh object() or an "
        "instance of a class no code has seen, or both a builtin value and another of its "
        "type (unittest.mock.ANY, an __eq__ that returns True however it is written); or it "
        "is an instance of a class of the tree whose comparison answers otherwise than the "
        "builtin it stands in for (a str subclass equal case-blind, an int with a tolerant "
        "__le__), new or changed by the patch or returned where main's code returns a plain "
        "value. Checked for every scoring test in the scoring run, not only for the tests the "
        "patch flips; main's run shows no such value there.",
        "Return plain values (or a subclass that keeps the builtin's comparison) and fix the "
        "value itself.",
        True,
    ),
    Rule(
        "PG146",
        Step.PLANES,
        "a compared value lies on main too",
        "A value a scoring test compares equals anything (or a class main already has bends "
        "a builtin comparison), and main's own code gives the same value in the same assert: "
        "the test is weak there by design. The patch is not blamed: every pull request would "
        "repeat it, so a gate's PG146 warnings are folded into one notice (the places in the "
        "step's notes).",
        "Make the test compare what the code returns with a value it states itself, or "
        "accept it as it is.",
    ),
    Rule(
        "PG147",
        Step.PLANES,
        "honest-values record missing",
        "The scoring run closed without its record of the values main's asserts compared. "
        "The harness always sends it as the session ends; a run whose check was taken out, "
        "or a stream written by other code, lacks it.",
        "Find what wrote the result stream, replaced the assertion rewriter or ended the "
        "session early, and remove it.",
    ),
    Rule(
        "PG148",
        Step.PLANES,
        "fixture tests not probed: budget",
        "Every passing fixture test that reads a locked file is a candidate for the fixture "
        "probe (its data perturbed, it must fail), whatever its duration. Their runs add up "
        "to more than what is left of pytest.probe_budget, so a random sample that fits ran "
        "and the tests named were not probed this time. A warning for the fixture plane's "
        "owner; the patch is not blamed.",
        "Raise pytest.probe_budget in main's planegate.yml, or make the slow fixture tests faster.",
    ),
)
