"""The hunks step's rules (exit 5): weakened tests, production code, property lints."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG501",
        Step.HUNKS,
        "skip or xfail added",
        "A skip turns a failing test green without the code being right.",
        "Remove the skip/xfail; fix the production code, or ask the owner to freeze the "
        "test in the ledger.",
    ),
    Rule(
        "PG502",
        Step.HUNKS,
        "assertion removed",
        "A test with fewer checks passes more patches; on an agent's patch the removed "
        "assert is usually the one that failed.",
        "Restore the assert; if the expected value really changed, a person changes it in "
        "a reviewed PR.",
    ),
    Rule(
        "PG503",
        Step.HUNKS,
        "assertion made vacuous",
        "`assert True`, `x or True`, comparing a value to itself or a bare truthiness check "
        "in place of an equality still counts as an assert but can no longer fail.",
        "Restore the value check the assert made before the patch.",
    ),
    Rule(
        "PG504",
        Step.HUNKS,
        "assertion made dead",
        "An assert after an early return, under `if False:`, behind an environment "
        "variable or inside `except AssertionError: pass` never fails.",
        "Move the assert back onto the path the test always runs; remove the guard.",
    ),
    Rule(
        "PG505",
        Step.HUNKS,
        "pytest.raises broadened or match removed",
        "Expecting `Exception` instead of the specific error, or dropping `match=`, lets "
        "any failure satisfy the test.",
        "Restore the specific exception type and the match pattern.",
    ),
    Rule(
        "PG506",
        Step.HUNKS,
        "tolerance loosened",
        "A raised `rel`/`abs` in pytest.approx or math.isclose accepts the wrong number.",
        "Restore the tolerance; fix the computation instead.",
    ),
    Rule(
        "PG507",
        Step.HUNKS,
        "expected value changed in a fixture-plane test",
        "Fixture-plane tests hold locked expected values; rewriting them to match new "
        "output grades the patch by itself.",
        "Restore the expected value; its owner changes it in a separate, reviewed PR.",
    ),
    Rule(
        "PG508",
        Step.HUNKS,
        "parametrize cases removed",
        "Each case is evidence; removing the failing case hides the failure.",
        "Restore the removed cases.",
    ),
    Rule(
        "PG509",
        Step.HUNKS,
        "test deleted",
        "A deleted test gives no evidence at all.",
        "Restore the test; a person removes tests in a reviewed PR.",
    ),
    Rule(
        "PG510",
        Step.HUNKS,
        "test no longer collected",
        "A test renamed to `check_...` or `..._test`, or switched off with `__test__ = "
        "False`, still reads like a test but never runs.",
        "Restore a collected name (`test_...` in a `Test...` class without `__init__`).",
    ),
    Rule(
        "PG511",
        Step.HUNKS,
        "async test without an async plugin",
        "Without pytest-asyncio or anyio pytest does not run `async def` tests: they never fail.",
        "Keep the test synchronous, or add the async plugin to the allowed plugins in a "
        "reviewed change.",
    ),
    Rule(
        "PG512",
        Step.HUNKS,
        "test shadowed by a duplicate name",
        "A second definition with the same name replaces the first, which silently stops running.",
        "Give each test its own name.",
    ),
    Rule(
        "PG513",
        Step.HUNKS,
        "Hypothesis example budget lowered",
        "Fewer examples find fewer counterexamples; the budget is part of the evidence.",
        "Restore max_examples (and stateful_step_count).",
    ),
    Rule(
        "PG514",
        Step.HUNKS,
        "Hypothesis assume() or .filter() added",
        "A new assumption can discard exactly the inputs that fail.",
        "Remove the assumption, or narrow the input in a reviewed change with a reason.",
    ),
    Rule(
        "PG515",
        Step.HUNKS,
        "Hypothesis @example removed",
        "Explicit examples are usually past counterexamples; removing one reopens the bug.",
        "Restore the @example.",
    ),
    Rule(
        "PG516",
        Step.HUNKS,
        "Hypothesis strategy narrowed",
        "`st.just`, a one-value `sampled_from` or tightened bounds stop generating the "
        "inputs that fail.",
        "Restore the strategy's range.",
    ),
    Rule(
        "PG517",
        Step.HUNKS,
        "Hypothesis phases limited",
        "Without the generate (or explicit, reuse, target) phase the test checks less.",
        "Remove the `phases=` restriction.",
    ),
    Rule(
        "PG518",
        Step.HUNKS,
        "Hypothesis seed, derandomize, database or profile changed",
        "Choosing a seed or profile can pick a run that happens to pass; the gate runs "
        "with a frozen seed of its own.",
        "Revert the seed, derandomize, database or profile change.",
    ),
    Rule(
        "PG519",
        Step.HUNKS,
        "state-machine invariant removed",
        "An invariant is checked after every step; removing it removes that check everywhere.",
        "Restore the @invariant method.",
    ),
    Rule(
        "PG520",
        Step.HUNKS,
        "conftest hook added",
        "A hook can deselect, skip or rewrite the outcome of any test.",
        "Remove the hook; conftest changes go through the owner in a reviewed PR.",
    ),
    Rule(
        "PG521",
        Step.HUNKS,
        "collect_ignore extended",
        "Ignored paths are never collected, so their tests never fail.",
        "Remove the new collect_ignore entry.",
    ),
    Rule(
        "PG522",
        Step.HUNKS,
        "pytest_plugins extended",
        "A plugin loaded from the tests can change how every test runs or reports.",
        "Remove the plugin; allowed plugins are set in planegate.yml.",
    ),
    Rule(
        "PG523",
        Step.HUNKS,
        "autouse fixture skips or patches",
        "An autouse fixture runs for every test it reaches: one that skips or "
        "monkeypatches the code under test weakens them all.",
        "Remove the fixture, or make it opt-in and explain it in a reviewed PR.",
    ),
    Rule(
        "PG524",
        Step.HUNKS,
        "line-based check (file does not parse)",
        "A file that does not parse cannot be compared by its syntax tree; the line-based "
        "check is weaker.",
        "Fix the syntax error so the full analysis can run.",
    ),
    Rule(
        "PG525",
        Step.HUNKS,
        "conftest hook changed (review)",
        "An existing hook's new body can change collection or reporting.",
        "Ask the conftest's owner to review the hook change.",
    ),
    Rule(
        "PG526",
        Step.HUNKS,
        "file too large to analyse",
        "A changed file over analysis.max_file_bytes is not parsed (parsing dense source "
        "costs hundreds of bytes of memory per byte), so nothing in it was checked.",
        "Split the file, or have the configuration's owner raise analysis.max_file_bytes.",
    ),
    Rule(
        "PG540",
        Step.HUNKS,
        "comparison narrowed to a part of the value",
        "The base compared a value whole; the patch compares only its length, keys or values, "
        "its items sorted or as a set, one entry or one attribute of it. The assert still "
        "reads as a check, but a wrong value with the right part passes.",
        "Restore the comparison of the whole value; if the expected value really changed, a "
        "person changes it in a reviewed PR.",
    ),
    Rule(
        "PG541",
        Step.HUNKS,
        "value check replaced by a None or type check",
        "The base compared a value; the patch only checks that it is (not) None or of a type "
        "(`is None`, `is not None`, `isinstance`, `assertIsNone`, `assertIsNotNone`, "
        "`assertIsInstance`): any value of that kind passes.",
        "Restore the equality the base made on the value.",
    ),
    Rule(
        "PG550",
        Step.HUNKS,
        "production code imports the test harness",
        "Code under test that imports pytest or hypothesis can skip, exit or reconfigure "
        "the run that judges it.",
        "Remove the import from production code; test helpers belong under tests/.",
    ),
    Rule(
        "PG551",
        Step.HUNKS,
        "production code reads pytest's environment",
        "PYTEST_CURRENT_TEST and friends exist only under pytest: code that reads them "
        "behaves differently when tested.",
        "Remove the lookup; production behaviour must not depend on being tested.",
    ),
    Rule(
        "PG552",
        Step.HUNKS,
        "production code looks the harness up in sys.modules",
        "Finding pytest in sys.modules tells the code it is being tested.",
        "Remove the sys.modules lookup.",
    ),
    Rule(
        "PG553",
        Step.HUNKS,
        "production code inspects its callers",
        "sys._getframe, inspect.stack and heap walks let code recognise a test caller or "
        "reach the runner's objects.",
        "Remove the stack or heap inspection; pass what the code needs as arguments.",
    ),
    Rule(
        "PG554",
        Step.HUNKS,
        "production code calls os._exit",
        "os._exit ends the process without the test session's closing record or cleanup.",
        "Use sys.exit / SystemExit in entry points; never exit from library code.",
    ),
    Rule(
        "PG555",
        Step.HUNKS,
        "atexit handler added",
        "An atexit handler runs after the test session and can rewrite how the process ends.",
        "Remove the handler, or release the resource explicitly.",
    ),
    Rule(
        "PG556",
        Step.HUNKS,
        "production code writes to builtins",
        "Replacing a builtin changes every module, the tests included.",
        "Remove the write; import what you need explicitly.",
    ),
    Rule(
        "PG557",
        Step.HUNKS,
        "pytest_plugins set in production code",
        "pytest_plugins asks pytest to load plugins the gate did not allow.",
        "Remove it; plugins are allowed in planegate.yml by the owner.",
    ),
    Rule(
        "PG558",
        Step.HUNKS,
        "pytest11 entry point added",
        "A pytest11 entry point loads the patch's code as a pytest plugin wherever the "
        "package is installed (the gate turns autoload off; other runs do not).",
        "Remove the entry point from the packaging file.",
    ),
    Rule(
        "PG559",
        Step.HUNKS,
        "__eq__ returns a constant",
        "An __eq__ that returns True for anything makes every assert == pass.",
        "Compare the fields that matter, and return NotImplemented for other types.",
    ),
    Rule(
        "PG560",
        Step.HUNKS,
        "field taken out of equality",
        "field(compare=False) makes objects that differ in the field compare equal.",
        "Keep the field compared, or explain the change to the test owner.",
    ),
    Rule(
        "PG561",
        Step.HUNKS,
        "production code refers to fixture evidence",
        "Production code that reads the fixture plane's locked files can copy the expected "
        "answers instead of computing them.",
        "Remove the reference; package data lives in the package.",
    ),
    Rule(
        "PG562",
        Step.HUNKS,
        "production code reads the oracle",
        "At run time production code opened a file main's tests read as their expected "
        "values (whatever the path's spelling): it can copy the answers instead of computing "
        "them. Opening a locked file no test reads is a warning: inputs are read by design; "
        "so is opening one main's production code opens in the same test on the base (the "
        "test hands main's code its input): main's behaviour, for the fixture plane's owner.",
        "Compute the result; package data the production code needs lives in the package.",
    ),
    Rule(
        "PG563",
        Step.HUNKS,
        "production code starts a process",
        "While the scoring tests ran, production code started a process (subprocess, "
        "os.exec*, os.posix_spawn, os.system, os.fork; found by the first production frame "
        "on the stack, whatever library lies between). A program reads files no audit event "
        "shows: `cat` of a golden, `find ... -exec cat`, `sh -c` with a path built at run "
        "time. An error when the starting line is the patch's (or no frame of the tree "
        "started it); a warning for the plane's owner when it is main's own line but main's "
        "run does not show that start there; quiet when main's run shows the same program "
        "started from the same line.",
        "Compute the result in the production code; a program the project needs is started "
        "by a line main already has, or reviewed by the plane's owner.",
    ),
    Rule(
        "PG564",
        Step.HUNKS,
        "production code loads a foreign function",
        "While the scoring tests ran, production code loaded a C library or one of its "
        "symbols through ctypes (ctypes.dlopen, ctypes.dlsym, a call by address): libc's "
        "open and read read files no audit event shows. Errors, warnings and main's own "
        "loads as for PG563. ctypes for C types (c_int, sizeof, structures) loads nothing.",
        "Compute the result in the production code; a C library the project needs is loaded "
        "by a line main already has, or reviewed by the plane's owner.",
    ),
    Rule(
        "PG580",
        Step.HUNKS,
        "property test uses wall-clock time",
        "A property that reads the clock does not hold the same way on every run.",
        "Pass the time in as a generated or fixed value.",
    ),
    Rule(
        "PG581",
        Step.HUNKS,
        "property test uses the network",
        "Sockets and HTTP clients make a property depend on the world outside the test.",
        "Test against an in-memory fake or a local fixture instead.",
    ),
    Rule(
        "PG582",
        Step.HUNKS,
        "property test uses the process-wide RNG",
        "random.random() and numpy.random.* module functions share state across tests: "
        "results depend on test order.",
        "Use a seeded generator (random.Random(seed), numpy.random.default_rng(seed)) or "
        "let Hypothesis generate the value.",
    ),
    Rule(
        "PG583",
        Step.HUNKS,
        "unseeded generator in a property test",
        "random.Random() or default_rng() without a seed differs on every run.",
        "Pass a fixed seed.",
    ),
    Rule(
        "PG570",
        Step.HUNKS,
        "production code carries the tests' answers",
        "The patch adds production code that reproduces what main's scoring tests expect: "
        "a special case for the exact input of an assert returning its answer, a table "
        "mapping the tests' inputs to their answers, or a copy of locked golden lines; or, "
        "for a test main fails and the patch makes pass, a branch fitted to what that test "
        "was observed to give the function and get back (the exact input, a substring or a "
        "digest prefix of it, returning the exact answer), however the test spelled them. "
        "It passes those tests without computing anything.",
        "Compute the answer from the input; the finding names the test or golden the "
        "literal mirrors.",
    ),
    # the reach review (analysis/reach.py; the capability table in analysis/reach_table.py)
    Rule(
        "PG590",
        Step.HUNKS,
        "production code reaches frames or tracebacks",
        "A frame (`f_back`, `tb_frame`, `gi_frame`, `f_globals`, `f_locals`, "
        "`sys._getframe`, `inspect.currentframe`, a signal handler that uses its frame) "
        "reaches the caller's variables: under test, the test runner's.",
        "A person reviews the line (the owner of the planes); pass what the code needs as "
        "arguments. A deprecation helper naming its caller stops here too, by design.",
    ),
    Rule(
        "PG591",
        Step.HUNKS,
        "production code reaches interpreter state",
        "`sys.modules`, `vars(sys)`, `gc`, trace and audit hooks reach every loaded module "
        "and object, the harness's included, whatever the names are spelled as.",
        "A person reviews the line; `sys.modules[__name__]` and a literal module name are "
        "not stopped.",
    ),
    Rule(
        "PG592",
        Step.HUNKS,
        "production code reaches through dunders",
        "`__globals__`, `__builtins__`, a module's `__dict__`, and writes to `__class__`, "
        "`__code__` or `__bases__` reach or rewrite code the project does not own.",
        "A person reviews the line; reads of `__code__`, `__closure__` and `__subclasses__` "
        "are warnings.",
    ),
    Rule(
        "PG593",
        Step.HUNKS,
        "production code acts on a computed name",
        "`eval`, `exec`, `compile`, `__import__` and `importlib.import_module` of a string "
        "built at run time, and `getattr`/`setattr` into a module by a computed name, do what "
        "no reader of the source can see. Literal arguments are read as what they name.",
        "A person reviews the line; use the literal name, or a table of the allowed ones.",
    ),
    Rule(
        "PG594",
        Step.HUNKS,
        "production code uses native or serialized code",
        "`ctypes` and `cffi` read and write memory directly; `pickle` and `marshal` loads run "
        "whatever the bytes name.",
        "A person reviews the line.",
    ),
    Rule(
        "PG595",
        Step.HUNKS,
        "production code reaches outside the project",
        "A write into a module the project does not own (`json.dumps = ...`, "
        "`setattr(logging, ...)`) changes it for every caller, the tests included; a string "
        "that builds a harness module's name from pieces, or names `/proc`, is how code "
        "finds the runner.",
        "A person reviews the line; wrap the other module's function instead of replacing it.",
    ),
    Rule(
        "PG527",
        Step.HUNKS,
        "skip added in a test that is not Python",
        "`GTEST_SKIP()`, a `DISABLED_` test name, `t.Skip`, `#[ignore]`, `.skip(`/`xit(`, a "
        "`{ skip: true }` option, a focused `.only(`, a Catch2 hidden tag or a ctest "
        "`DISABLED`/`WILL_FAIL` property turns a failing test green (or leaves the others "
        "out) without the code being right.",
        "Remove the skip; fix the production code, or ask the owner to freeze the test in "
        "the ledger.",
    ),
    Rule(
        "PG528",
        Step.HUNKS,
        "assertion removed from a test that is not Python",
        "The file has fewer `EXPECT_*`/`ASSERT_*`, `REQUIRE`/`CHECK`, `require.`/`assert.`, "
        "`t.Error`/`t.Fatal`, `assert!` or `expect(` checks than on the base: a test with "
        "fewer checks passes more patches.",
        "Restore the assertion; if the expected value really changed, a person changes it "
        "in a reviewed PR.",
    ),
    Rule(
        "PG529",
        Step.HUNKS,
        "assertion commented out in a test that is not Python",
        "An assertion of the base is still in the file, inside a comment or an `#if 0` "
        "block: it reads as a check in review and never runs.",
        "Uncomment the assertion; fix the production code instead.",
    ),
    Rule(
        "PG530",
        Step.HUNKS,
        "frozen seed changed in a test that is not Python",
        "A property loop's seed (`std::mt19937 rng(0x5EED)`, `seed_from_u64`, "
        "`rand.NewSource`, a `seed` option) picks its inputs; another seed picks inputs the "
        "patch may pass by luck, and removing it makes every run different.",
        "Restore the base's seed; a new seed is a person's change on main.",
    ),
    Rule(
        "PG531",
        Step.HUNKS,
        "iteration budget lowered in a test that is not Python",
        "A property loop's bound (`i < 500`, `0..500`, `numRuns`, `with_cases`) or a named "
        "budget (`kIterations = 500`) is lower than on the base: fewer inputs, fewer chances "
        "to fail.",
        "Restore the budget; make the code fast enough instead.",
    ),
)
