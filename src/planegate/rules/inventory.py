"""The inventory step's rules (exit 2): which plane each collected nodeid belongs to."""

from __future__ import annotations

from planegate.findings import Step
from planegate.rules.rule_type import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "PG201",
        Step.INVENTORY,
        "unclassified nodeid",
        "A test no plane claims would vote without anyone having said what it proves.",
        "Add its file to a plane's paths (or the nodeid to a plane's nodeids) in "
        "planegate.yml, in a change reviewed by the plane map's owner.",
    ),
    Rule(
        "PG202",
        Step.INVENTORY,
        "nodeid in two planes",
        "A test must answer exactly one question; two planes give it two policies.",
        "Remove the overlap between the planes' paths/nodeids in planegate.yml.",
    ),
    Rule(
        "PG203",
        Step.INVENTORY,
        "mixed file",
        "A file with property and fixture tests cannot be locked by one policy.",
        "Split the file: move each test to a file of its own plane (`planegate init "
        "--split` does it). Until then a file whose nodeids are all listed by nodeid is "
        "a notice, not a failure.",
    ),
    Rule(
        "PG204",
        Step.INVENTORY,
        "plane changed between base and head",
        "Moving a test to another plane changes what evidence it gives.",
        "Keep the test where it is, or move it in a change the plane map's owner makes.",
    ),
    Rule(
        "PG205",
        Step.INVENTORY,
        "nodeid vanished",
        "A test on main that the patch no longer collects stops giving evidence.",
        "Restore the test or the production code it collects from (parametrize data, imports).",
    ),
    Rule(
        "PG206",
        Step.INVENTORY,
        "collection failed",
        "Tests that cannot be collected give no evidence at all.",
        "Fix the import or syntax error the collection output names.",
        True,
    ),
    Rule(
        "PG207",
        Step.INVENTORY,
        "a test the patch adds is in no plane",
        "A test file the patch adds is the patch's claim, not evidence: it ran apart and never "
        "voted, and until a person says what it proves it cannot become evidence.",
        "A person (not an agent) adds the rows the report shows to planegate.yml's "
        "planes.<plane>.nodeids, in a commit of their own on the pull request; or the "
        "maintainer declares an `admit` folder for the plane on main.",
    ),
    Rule(
        "PG208",
        Step.INVENTORY,
        "a test the patch adds did not pass",
        "A test file the patch adds runs in a session of its own and never votes; when it "
        "fails, errors or its session does not finish, the patch's claim does not hold.",
        "Read the test's outcome: fix the test or the code it claims to cover.",
        True,
    ),
    Rule(
        "PG210",
        Step.INVENTORY,
        "pytest refused the configuration",
        "pytest stopped before collecting any test (a usage error: an option it does not know, "
        "a path that does not exist, a conftest that fails to import), with the base's "
        "configuration, on the base as on the patch: nothing was tested.",
        "Fix the base's pytest configuration or planegate.yml's pytest.args; pytest's message "
        "is in the finding.",
    ),
    # the shipped package is the tested package (config/shipped.py, steps/tested_copy.py)
    Rule(
        "PG211",
        Step.INVENTORY,
        "the tested copy of a package is not the shipped one",
        "The patch adds a copy of a package the base ships (`src/shop/` beside the `shop/` "
        "that pyproject.toml packages, a module named like it in an earlier root) where the "
        "test run imports it first: main's tests then pass against the copy while the bug "
        "stays in what ships.",
        "Change the shipped package itself; a layout change (flat to `src/`) moves the files "
        "and the packaging metadata in one reviewed patch, for the plane map's owner.",
    ),
)
