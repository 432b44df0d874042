"""Every default planegate uses, defined once.

`CONFIG` maps each `planegate.yml` key that has a fixed default to it; the JSON Schema's
`default` keywords and the table in docs/configuration.md show the same values (a test keeps
the three in step). The other names are defaults of the freeze ledger, the sweep and the runner.
"""

from __future__ import annotations

from collections.abc import Mapping

from planegate import sourcesize

# planegate.yml
OWNER = "unowned"
MANIFEST = "tests/fixtures.lock.json"
LEDGER = "freeze_ledger.jsonl"
AGENT_AUTHORS: tuple[str, ...] = ("*[bot]",)
AGENT_LABELS: tuple[str, ...] = ("agent",)
ON_HUMAN = "review"
PYTEST_PLUGINS: tuple[str, ...] = ("hypothesis",)
PYTEST_TIMEOUT = 1200.0  # seconds for one pytest run
TRIAGE_RUNS = 3
TRIAGE_MAX = 10
PROBE_BUDGET = 300.0  # seconds for the probes of one gate run
SAMPLED_CANARIES = 3  # scoring tests rerun with a function they call broken (0: off)
MAX_EXAMPLES = 100
SEED = 0
MAX_FROZEN_FRACTION = 0.05
FIXTURE_PROBE = True
SANDBOX_NETWORK = False  # the test child reaches loopback only
MAX_FILE_BYTES = sourcesize.MAX_FILE_BYTES

RUNNER = "pytest"  # `runner: junit` runs the `junit` section's command instead
JUNIT_ID = "{classname}::{name}"
JUNIT_FILTER = "none"  # frozen tests run and are ignored unless a runner's filter is named

CONFIG: Mapping[str, object] = {
    "owner": OWNER,
    "planes.property.paths": (),
    "planes.property.nodeids": (),
    "planes.property.admit": (),
    "planes.property.max_examples": MAX_EXAMPLES,
    "planes.property.seed": SEED,
    "planes.fixture.paths": (),
    "planes.fixture.nodeids": (),
    "planes.fixture.admit": (),
    "planes.fixture.data": (),
    "planes.fixture.probe": FIXTURE_PROBE,
    "analysis.max_file_bytes": MAX_FILE_BYTES,
    "planes.freeze.max_fraction": MAX_FROZEN_FRACTION,
    "manifest": MANIFEST,
    "ledger": LEDGER,
    "protected": (),
    "evidence.exclude": (),
    "agents.authors": AGENT_AUTHORS,
    "agents.labels": AGENT_LABELS,
    "agents.on_human": ON_HUMAN,
    "pytest.args": (),
    "pytest.plugins": PYTEST_PLUGINS,
    "pytest.timeout": PYTEST_TIMEOUT,
    "pytest.env": (),
    "pytest.triage_runs": TRIAGE_RUNS,
    "pytest.triage_max": TRIAGE_MAX,
    "pytest.probe_budget": PROBE_BUDGET,
    "pytest.sampled_canaries": SAMPLED_CANARIES,
    "sandbox.network": SANDBOX_NETWORK,
    "runner": RUNNER,
    "junit.id": JUNIT_ID,
    "junit.filter": JUNIT_FILTER,
    "junit.timeout": PYTEST_TIMEOUT,
    "junit.env": (),
}

# Paths protected whatever the configuration says (DESIGN §2, §5); `protected` adds to them.
PROTECTED: tuple[str, ...] = (
    "**/conftest.py",
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    ".github/workflows/**",
    "**/sitecustomize.py",
    "**/usercustomize.py",
    "**/*.pth",
    "CODEOWNERS",
    ".github/CODEOWNERS",
    "docs/CODEOWNERS",
)

# The freeze ledger: a thaw needs clamp(ceil(ln THAW_CONFIDENCE / ln(1 - p)), MIN, MAX) clean
# runs, p the failure rate the freeze evidence estimates.
THAW_RUNS_MIN = 20
THAW_RUNS_MAX = 100
THAW_CONFIDENCE = 0.05

# The flake sweep proposes at most this many freezes at a time.
MAX_PROPOSALS = 10

# The fresh-input probe runs a flipped property test with this many times its example budget.
PROBE_EXAMPLES_FACTOR = 5
