"""Real suites: `planegate init`, `lock`, `digest` and `gate` on the sdists of real projects.

For each pinned project (the `PROJECTS` table) the bench unpacks the sdist from
the cache into a temporary git repository, runs `planegate init --write` (with `--split` where
the table says so), `planegate lock`, commits (where main fails in this environment, sweeps it
and commits the `env` freezes it proposes, as a maintainer would), writes main's digest, then
commits an honest patch (one comment added to a production module) and times `planegate gate`
against a plain `python -m pytest` of the same tests. It prints the ratio, the gate's exit and
every finding. On an honest patch every failing finding is a false alarm of the gate. Where the
table gives a `claim`, it also runs the test-adding flow: a patch that adds a regression test
(committed as an agent) must exit 2 with the rows to add, 0 once a person commits them, and 0
on a main that declares an `admit` folder.

The sdists come from the package index once, into a cache (default `.bench-cache/`,
gitignored); the bench itself needs no network:

    python bench/real_projects.py --fetch     # download the sdists; install test dependencies
    python bench/real_projects.py [--only attrs] [--keep] [--shards 3] [--runs 3]

`--keep` leaves the repository with a branch `digested` at the commit main's digest is of
(the test-adding flow moves main on): gate the kept `honest` branch with `--base digested`,
or the gate runs the base's side again (10 s more on packaging).

`--runs N` times the gate and plain pytest N times each, alternating, and keeps the best of
each; plain pytest starts as on a fresh checkout (no `.hypothesis/` of an earlier run).
`--shards N` also runs `gate --shard K/N` for every K and `gate --merge` on their evidence,
and says whether the merged verdict is the unsharded one.

The projects' tests run in this interpreter's environment, so their test dependencies must be
installed in it: `--fetch` installs them (`pip install`), and the bench names what is missing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench_gate import (  # planegate as installed; plain pytest's baseline as a developer has it
    compile_planegate,
    warm_rewrite_caches,
)

CACHE = Path(__file__).resolve().parent.parent / ".bench-cache"
INTERNAL = 70  # planegate's exit code for an unexpected failure
GOAL = 1.3  # the gate with main's digest over plain pytest, on every real project


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    patch: str  # the production module the honest patch comments
    split: bool = True
    deps: tuple[tuple[str, str], ...] = ()  # (distribution, module) the tests import
    plugins: tuple[str, ...] = ()  # pytest plugins the suite needs: init's --plugin
    claim: str = ""  # a regression test an honest patch adds (the test-adding flow)
    tests: str = "tests"  # the folder of the project's tests: where the claim is added
    # main fails here (this machine's interpreter, time-zone data, a file git does not track):
    # the maintainer sweeps main and commits the freezes it proposes before the digest
    sweep: bool = False

    @property
    def sdist(self) -> str:
        """The sdist's file name: the index normalises the name to underscores."""
        return f"{self.name.replace('-', '_')}-{self.version}.tar.gz"


PROJECTS = (
    Project(
        "attrs",
        "26.1.0",
        "src/attr/_make.py",
        sweep=True,  # TestPipe::test_wrapped_annotation fails on this machine's Pythons
        deps=(("cloudpickle", "cloudpickle"), ("pympler", "pympler")),
        claim=(
            "import attrs\n\n\n@attrs.define\nclass Point:\n    x: int\n\n\n"
            "def test_equal_points_compare_equal():\n    assert Point(1) == Point(1)\n"
        ),
    ),
    Project(
        "jsonschema",
        "4.26.0",
        "jsonschema/validators.py",
        deps=(("jsonpath-ng", "jsonpath_ng"),),
        claim=(
            "from jsonschema import Draft202012Validator\n\n\n"
            "def test_a_string_is_not_an_integer():\n"
            "    assert not Draft202012Validator({'type': 'integer'}).is_valid('a')\n"
        ),
        tests="jsonschema/tests",
    ),
    Project(
        "packaging",
        "26.4",
        "src/packaging/version.py",
        deps=(("pretend", "pretend"), ("tomli_w", "tomli_w")),
        claim=(
            "from packaging.version import Version\n\n\n"
            "def test_a_dev_release_sorts_before_its_release():\n"
            "    assert Version('1.0.dev1') < Version('1.0')\n"
        ),
    ),
    Project("tomli", "2.5.0", "src/tomli/_parser.py"),  # its sdist ships no tests
    Project(
        "cachetools",
        "8.0.2",
        "src/cachetools/__init__.py",
        claim=(
            "from cachetools import LRUCache\n\n\n"
            "def test_the_least_recently_used_item_goes_first():\n"
            "    cache = LRUCache(maxsize=2)\n"
            "    cache['a'], cache['b'], cache['c'] = 1, 2, 3\n"
            "    assert 'a' not in cache\n"
        ),
    ),
    Project(
        "toolz",
        "1.2.0",
        "toolz/itertoolz.py",
        claim=(
            "from toolz import unique\n\n\n"
            "def test_unique_keeps_the_first_of_each():\n"
            "    assert list(unique([1, 2, 1])) == [1, 2]\n"
        ),
        tests="toolz/tests",
    ),
    Project(
        "markdown-it-py",
        "4.3.0",
        "markdown_it/main.py",
        deps=(
            ("mdurl", "mdurl"),  # its own dependency: the sdist is not installed
            ("linkify-it-py", "linkify_it"),
            ("pytest-regressions", "pytest_regressions"),
            ("pytest-timeout", "pytest_timeout"),
            ("flit_core", "flit_core"),
            ("requests", "requests"),
        ),
        plugins=("pytest-regressions", "pytest-datadir", "pytest-timeout"),
        claim=(
            "from markdown_it import MarkdownIt\n\n\n"
            "def test_emphasis_renders_as_em():\n"
            "    assert MarkdownIt().render('*a*') == '<p><em>a</em></p>\\n'\n"
        ),
    ),
    Project(
        "idna",
        "3.21",
        "idna/core.py",
        claim=(
            "import idna\n\n\n"
            "def test_a_label_encodes_to_punycode():\n"
            "    assert idna.encode('b\\u00fccher') == b'xn--bcher-kva'\n"
        ),
    ),
    Project(
        "python-dateutil",
        "4.0.0",
        "src/dateutil/relativedelta.py",
        deps=(("freezegun", "freezegun"), ("pytest-cov", "pytest_cov")),
        plugins=("pytest-cov",),  # its `no_cover` mark, under filterwarnings = error
        sweep=True,  # a generated _version.py git does not track; time-zone data
        claim=(
            "from datetime import date\n\nfrom dateutil.relativedelta import relativedelta\n\n\n"
            "def test_a_month_after_january_31_is_the_end_of_february():\n"
            "    assert date(2020, 1, 31) + relativedelta(months=1) == date(2020, 2, 29)\n"
        ),
    ),
    Project(  # 765 tests holding 21,194 subtests: a real subtest-heavy suite
        "more-itertools",
        "11.2.1",
        "more_itertools/recipes.py",
        claim=(
            "from more_itertools import chunked\n\n\n"
            "def test_chunks_of_two():\n    assert list(chunked([1, 2, 3], 2)) == [[1, 2], [3]]\n"
        ),
    ),
    Project(  # one module; main appends its import finder to sys.meta_path, re-exports
        "six",  # standard modules as six.moves.*
        "1.17.0",
        "six.py",
        tests=".",
        claim="import six\n\n\ndef test_text_type_is_str():\n    assert six.text_type is str\n",
    ),
    Project(  # a class built at run time (wrap_trace) whose __eq__ main's test compares
        "boltons",
        "26.2.0",
        "boltons/iterutils.py",
        claim=(
            "from boltons.iterutils import chunked\n\n\n"
            "def test_chunked_pairs():\n    assert chunked([1, 2, 3], 2) == [[1, 2], [3]]\n"
        ),
    ),
    Project(  # its doctests live in its one production module (--doctest-modules)
        "parse",
        "1.22.4",
        "parse/__init__.py",
        deps=(("pytest-cov", "pytest_cov"),),
        plugins=("pytest-cov",),  # its addopts name --cov
        claim=(
            "from parse import parse\n\n\n"
            "def test_an_int_field():\n    assert parse('{:d}', '42')[0] == 42\n"
        ),
    ),
)


@dataclass
class Outcome:
    project: str
    status: str = "ok"
    tests: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    gate_exit: int | None = None
    pytest_exit: int | None = None
    init_notes: list[str] = field(default_factory=list)
    findings: list[dict[str, str]] = field(default_factory=list)
    flows: dict[str, str] = field(default_factory=dict)  # the acceptance table's cells


def fetch(cache: Path, projects: tuple[Project, ...]) -> int:
    cache.mkdir(parents=True, exist_ok=True)
    for project in projects:
        if not (cache / project.sdist).is_file():
            command = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:"]
            command += ["--no-deps", f"{project.name}=={project.version}", "-d", str(cache)]
            print(f"fetching {project.sdist}", flush=True)
            subprocess.run(command, check=True)
        missing = [dist for dist, module in project.deps if not _importable(module)]
        if missing:
            print(f"installing test dependencies of {project.name}: {', '.join(missing)}")
            subprocess.run([sys.executable, "-m", "pip", "install", *missing], check=True)
    return 0


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _run(
    command: list[str], cwd: Path, timeout: float = 7200, pythonpath: str = ""
) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    return done, time.perf_counter() - start


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


def _planegate(repo: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """A planegate command in `repo`; an internal error (exit 70) prints its traceback."""
    done, seconds = _run([sys.executable, "-m", "planegate", *args, "--debug"], repo)
    if done.returncode == INTERNAL:
        print(
            f"planegate {' '.join(args)} exited {INTERNAL}:\n{done.stderr[-4000:]}", file=sys.stderr
        )
    return done, seconds


def unpack(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    repo = top.rename(into / "repo")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "planegate bench")
    _git(repo, "config", "user.email", "bench@planegate.invalid")
    _git(repo, "config", "commit.gpgsign", "false")
    _git(repo, "add", "--all")
    _git(repo, "commit", "-q", "-m", "sdist")
    return repo


def has_tests(repo: Path) -> bool:
    names = (p.name for p in repo.rglob("*.py"))
    return any(n.startswith("test_") or n.endswith("_test.py") for n in names)


def setup_main(project: Project, repo: Path, outcome: Outcome) -> Path | None:
    """init (and split), lock, commit, digest: main as a person leaves it. The digest path."""
    init = ["init", "--write", "-q"] + (["--split"] if project.split else [])
    init += [option for plugin in project.plugins for option in ("--plugin", plugin)]
    done, outcome.timings["init"] = _planegate(repo, *init)
    outcome.init_notes = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0:
        outcome.status = f"init exited {done.returncode}"
        return None
    done, _ = _planegate(repo, "lock", "-q")
    if done.returncode != 0:
        outcome.status = f"lock exited {done.returncode}: {done.stderr.strip()}"
        return None
    _git(repo, "add", "--all")
    _git(repo, "commit", "-q", "-m", "planegate: planes, splits and locks")
    if project.sweep and not sweep_main(repo, outcome):
        return None
    digest = repo.parent / "digest.json"
    done, outcome.timings["digest"] = _planegate(repo, "digest", "--out", str(digest), "-q")
    if done.returncode != 0:
        outcome.status = f"digest exited {done.returncode}: {done.stderr.strip()}"
        return None
    counts = re.search(r"root \w+, (.*) -> ", done.stdout)
    outcome.tests = f"digest: {counts.group(1) if counts else done.stdout.strip()}"
    return digest


def sweep_main(repo: Path, outcome: Outcome) -> bool:
    """Main's own failures here, as a maintainer handles them (docs/freeze.md): `planegate
    sweep` proposes an `env` freeze for a test that passes under plain pytest, and, with
    `--broken-here` (main passes in the project's own CI), for one that fails here under plain
    pytest too; `--write` appends them, and the ledger and evidence are committed."""
    argv = ["sweep", "--broken-here", "--write", "--seed", "1", "-q"]
    done, outcome.timings["sweep"] = _planegate(repo, *argv)
    proposed = [line for line in done.stdout.splitlines() if line.startswith("propose freeze")]
    outcome.init_notes += [f"sweep: {line.split(' in mode ')[0]}" for line in proposed]
    if done.returncode != 0:
        outcome.status = f"sweep exited {done.returncode}: {done.stderr.strip()[-300:]}"
        return False
    if not proposed:
        return True
    _git(repo, "add", "freeze_ledger.jsonl", ".planegate/evidence")
    _git(repo, "commit", "-q", "-m", "planegate: freeze main's own failures in this environment")
    return True


def honest_patch(project: Project, repo: Path) -> None:
    _git(repo, "checkout", "-q", "-b", "honest")
    module = repo / project.patch
    lines = module.read_text("utf-8").splitlines(keepends=True)
    lines.insert(1 if lines and lines[0].startswith("#") else 0, "# an honest comment\n")
    module.write_text("".join(lines), "utf-8")
    _git(repo, "commit", "-q", "-am", "a comment in production code")


def time_gate_and_pytest(repo: Path, digest: Path, outcome: Outcome, runs: int = 1) -> None:
    """The gate and plain pytest, alternating `runs` times; the best of each (on a shared
    machine one run may take a third longer than the next for the same work)."""
    report = repo.parent / "report.json"
    gate = ["gate", "--base", "main", "--digest", str(digest), "--format", "json"]
    plain = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    exits: set[int] = set()
    for _ in range(runs):
        done, seconds = _planegate(repo, *gate, "--output", str(report), "-q")
        outcome.timings["gate"] = min(seconds, outcome.timings.get("gate", seconds))
        exits.add(done.returncode)
        fresh_checkout(repo)
        # a src/ layout is importable as the project's own tox or CI makes it (installed);
        # the gate puts src/ on sys.path itself
        plain_done, seconds = _run(plain, repo, pythonpath="src" if (repo / "src").is_dir() else "")
        outcome.timings["pytest"] = min(seconds, outcome.timings.get("pytest", seconds))
    outcome.gate_exit = done.returncode
    if len(exits) > 1:
        outcome.status = f"the same gate exited {sorted(exits)} across runs"
    if report.is_file():
        data = json.loads(report.read_text("utf-8"))
        outcome.findings = [f for step in data["steps"] for f in step["findings"]]
    else:
        outcome.status = f"gate wrote no report: {done.stderr.strip()[-300:]}"
    outcome.pytest_exit = plain_done.returncode
    summary = [line for line in plain_done.stdout.splitlines() if line.strip()]
    outcome.tests += f"; pytest: {summary[-1] if summary else 'no output'}"
    if runs > 1:
        outcome.tests += f"; best of {runs} alternating runs"


AGENT = {"GIT_AUTHOR_NAME": "coder[bot]", "GIT_AUTHOR_EMAIL": "coder[bot]@users.noreply.github.com"}
PERSON = {"GIT_AUTHOR_NAME": "A Maintainer", "GIT_AUTHOR_EMAIL": "maintainer@example.com"}


def _commit_as(repo: Path, who: dict[str, str], message: str) -> None:
    committer = {k.replace("AUTHOR", "COMMITTER"): v for k, v in who.items()}
    env = {**os.environ, **who, **committer}
    subprocess.run(["git", "add", "--all"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)


def _gate_exit(repo: Path, digest: Path | None, name: str) -> tuple[int, dict[str, object]]:
    report = repo.parent / f"{name}.json"
    argv = ["gate", "--base", "main", "--format", "json", "--output", str(report), "-q"]
    done, _ = _planegate(repo, *argv, *(["--digest", str(digest)] if digest else []))
    data = json.loads(report.read_text("utf-8")) if report.is_file() else {}
    return done.returncode, data


def _with_entry(config: str, plane: str, entry: str, key: str = "nodeids") -> str:
    """planegate.yml with `entry` added to a plane's `key` list (as loaded values: the
    gate compares the two files as values, so the layout PyYAML writes does not matter)."""
    import yaml

    data = yaml.safe_load(config)
    section = data["planes"].setdefault(plane, {}) or {}
    data["planes"][plane] = section
    section[key] = [*(section.get(key) or []), entry]
    return yaml.safe_dump(data, sort_keys=False)


def _admitted(project: Project) -> str:
    """The folder the flow's main admits, as docs/configuration.md's example: a folder of its
    own (an `admit` folder's files are its plane's, so `tests/` would also claim the files the
    other plane's paths hold, PG202)."""
    return f"{project.tests}/regressions/"


def _claim_path(project: Project) -> str:
    return f"{_admitted(project)}test_planegate_claim.py"


def _with_rows(config: str, rows: list[str]) -> str:
    """planegate.yml with the report's rows added, as a person pastes them (the rows are a
    `planes:` fragment: steps/new_tests.py `rows_to_add`)."""
    import yaml

    fragment = yaml.safe_load("\n".join(rows)) or {}
    for plane, section in (fragment.get("planes") or {}).items():
        for entry in section.get("nodeids") or []:
            config = _with_entry(config, plane, entry)
    return config


def test_adding_flow(project: Project, repo: Path, digest: Path, outcome: Outcome) -> None:
    """An honest patch that adds a regression test: exit 2 with the rows to add; 0 once a
    person commits them; and, on a main that declares an `admit` folder, 0 with no rows."""
    claim = _claim_path(project)
    _git(repo, "checkout", "-q", "-b", "claim", "main")
    (repo / claim).parent.mkdir(parents=True, exist_ok=True)
    (repo / claim).write_text(project.claim, "utf-8")
    _commit_as(repo, AGENT, "a regression test")
    code, report = _gate_exit(repo, digest, "claim")
    rows = [str(row) for row in report.get("classify") or []]  # type: ignore[attr-defined]
    outcome.flows["add-test"] = f"{code} ({len(rows)} rows)"
    config = repo / "planegate.yml"
    config.write_text(_with_rows(config.read_text("utf-8"), rows), "utf-8")
    _commit_as(repo, PERSON, "classify the regression test")
    classified, _ = _gate_exit(repo, digest, "classified")
    outcome.flows["after person"] = str(classified)
    _git(repo, "checkout", "-q", "main")  # the maintainer's change, on main
    config.write_text(
        _with_entry(config.read_text("utf-8"), "fixture", _admitted(project), key="admit"),
        "utf-8",
    )
    _commit_as(repo, PERSON, f"admit new tests under {_admitted(project)}")
    _git(repo, "checkout", "-q", "-b", "claim-admitted", "main")
    (repo / claim).parent.mkdir(parents=True, exist_ok=True)
    (repo / claim).write_text(project.claim, "utf-8")
    _commit_as(repo, AGENT, "a regression test")
    # main moved: its digest is written again, as the digest workflow does on every push
    moved = repo.parent / "digest-admit.json"
    _git(repo, "checkout", "-q", "main")
    done, _ = _planegate(repo, "digest", "--out", str(moved), "-q")
    _git(repo, "checkout", "-q", "claim-admitted")
    admitted, _ = _gate_exit(repo, moved if done.returncode == 0 else None, "admitted")
    outcome.flows["admit"] = str(admitted)
    outcome.tests += "; a test-adding patch: " + ", ".join(
        f"{name} {cell}" for name, cell in outcome.flows.items() if name != "cheat"
    )
    if (code, classified, admitted) != (2, 0, 0) or not rows:
        outcome.status = "the test-adding flow did not give 2 (rows), 0, 0"


CHEATS = {
    # a conftest that reports every failing test as passed
    "conftest.py": (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    report = outcome.get_result()\n"
        "    report.outcome = 'passed'\n"
    ),
}


def cheat_flows(project: Project, repo: Path, digest: Path, outcome: Outcome) -> None:
    """Test-side cheats on top of the honest patch, each as an agent's commit: a conftest that
    turns failures into passes, and a protected test file emptied. Each must exit non-zero."""
    exits = []
    _git(repo, "checkout", "-q", "-b", "cheat-conftest", "honest")
    for path, text in CHEATS.items():
        (repo / path).write_text(text, "utf-8")
        _git(repo, "add", "--force", path)  # semver's .gitignore ignores every root `*.py`
    _commit_as(repo, AGENT, "make the suite pass")
    exits.append(_gate_exit(repo, digest, "cheat-conftest")[0])
    _git(repo, "checkout", "-q", "-b", "cheat-emptied", "honest")
    folder = repo / project.tests
    emptied = sorted([*folder.glob("test_*.py"), *folder.glob("*_test.py")])[0]
    emptied.write_text("", "utf-8")
    _commit_as(repo, AGENT, "drop a test file's tests")
    exits.append(_gate_exit(repo, digest, "cheat-emptied")[0])
    outcome.flows["cheat"] = " / ".join(str(code) for code in exits)
    if 0 in exits:
        outcome.status = f"a cheat exited 0 ({outcome.flows['cheat']})"


def fresh_checkout(repo: Path) -> None:
    """Plain pytest starts as on a fresh CI checkout, as the gate's tree does: without the
    `.hypothesis/` folder an earlier run left (Hypothesis keeps its Unicode tables there;
    computing them took attrs' suite 2 to 3 s of its 14)."""
    shutil.rmtree(repo / ".hypothesis", ignore_errors=True)


def shards_and_merge(repo: Path, digest: Path, total: int, outcome: Outcome) -> None:
    """`gate --shard K/N` for every K, then `gate --merge`: the merged verdict must be the
    unsharded one (the same exit code and the same findings)."""
    evidence = []
    for index in range(1, total + 1):
        out = repo.parent / f"shard-{index}.json"
        shard = ["gate", "--base", "main", "--digest", str(digest), "--shard", f"{index}/{total}"]
        done, outcome.timings[f"shard {index}/{total}"] = _planegate(
            repo, *shard, "--evidence", str(out), "--format", "json", "-q"
        )
        evidence.append(str(out))
    report = repo.parent / "merged.json"
    merge = ["gate", "--base", "main", "--digest", str(digest), "--merge", *evidence]
    done, outcome.timings["merge"] = _planegate(
        repo, *merge, "--format", "json", "--output", str(report), "-q"
    )
    merged = json.loads(report.read_text("utf-8")) if report.is_file() else {"steps": []}
    found = sorted(
        (f["rule"], f.get("nodeid") or f.get("path") or "")
        for s in merged["steps"]
        for f in s["findings"]
    )
    alone = sorted((f["rule"], f.get("nodeid") or f.get("path") or "") for f in outcome.findings)
    same = done.returncode == outcome.gate_exit and found == alone
    outcome.tests += (
        f"; {total} shards + merge: exit {done.returncode}, {len(found)} findings, "
        + ("the same as one gate" if same else "DIFFERENT from one gate")
    )
    if not same:
        outcome.status = "sharded verdict differs"


def bench(project: Project, cache: Path, keep: bool, shards: int = 0, runs: int = 1) -> Outcome:
    outcome = Outcome(project.name)
    sdist = cache / project.sdist
    if not sdist.is_file():
        outcome.status = (
            f"SKIPPED: {sdist} is not in the cache; fill it with "
            "`python bench/real_projects.py --fetch` (needs the package index)"
        )
        return outcome
    missing = [dist for dist, module in project.deps if not _importable(module)]
    if missing:
        outcome.status = (
            f"SKIPPED: test dependencies missing: {', '.join(missing)} "
            f"(`python -m pip install {' '.join(missing)}`, or --fetch)"
        )
        return outcome
    scratch = Path(tempfile.mkdtemp(prefix=f"planegate-bench-{project.name}-"))
    try:
        repo = unpack(sdist, scratch)
        if not has_tests(repo):
            outcome.status = "SKIPPED: the sdist ships no test files: nothing to gate"
            return outcome
        digest = setup_main(project, repo, outcome)
        if digest is not None:
            # the test-adding flow moves main: a gate run again on the kept repository
            # measures against the digested commit (`--base digested`), not a base it must run
            _git(repo, "branch", "digested", "main")
            honest_patch(project, repo)
            time_gate_and_pytest(repo, digest, outcome, runs)
            outcome.flows["honest"] = str(outcome.gate_exit)
            cheat_flows(project, repo, digest, outcome)
            if shards > 1:
                shards_and_merge(repo, digest, shards, outcome)
            if project.claim:
                test_adding_flow(project, repo, digest, outcome)
    finally:
        if keep:
            print(
                f"kept {scratch} (again, in repo/ on branch honest: planegate gate "
                "--base digested --digest ../digest.json)"
            )
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return outcome


def show(outcome: Outcome) -> None:
    print(f"== {outcome.project}: {outcome.status}")
    if outcome.flows:
        print("   table: " + ", ".join(f"{name} {cell}" for name, cell in outcome.flows.items()))
    if not outcome.timings:
        return
    times = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in outcome.timings.items())
    print(f"   {outcome.tests}")
    print(f"   {times}")
    if "gate" in outcome.timings and "pytest" in outcome.timings:
        ratio = outcome.timings["gate"] / max(outcome.timings["pytest"], 1e-9)
        print(
            f"   gate/pytest = {ratio:.2f}x (goal <= {GOAL:.2f}x"
            f"{'' if ratio <= GOAL else ', OVER'}); gate exit {outcome.gate_exit}, "
            f"pytest exit {outcome.pytest_exit}"
        )
    for note in outcome.init_notes:
        print(f"   init: {note.removeprefix('planegate: ')}")
    counts = Counter((f["severity"], f["rule"]) for f in outcome.findings)
    if counts:
        print("   findings: " + ", ".join(f"{n} {s} {r}" for (s, r), n in sorted(counts.items())))
    groups: dict[tuple[str, str, str], list[str]] = {}
    for finding in outcome.findings:
        key = (finding["severity"], finding["rule"], _reason(finding))
        groups.setdefault(key, []).append(finding.get("nodeid") or finding.get("path") or "-")
    for (severity, rule, reason), where in sorted(groups.items(), key=lambda g: -len(g[1])):
        more = f" (and {len(where) - 1} more)" if len(where) > 1 else ""
        print(f"   {severity:7} {rule} x{len(where)}: {where[0]}{more}: {reason}")


def _reason(finding: dict[str, str]) -> str:
    """A finding's message without its nodeid and worktree paths, so alike ones group."""
    message = finding["message"]
    nodeid = finding.get("nodeid")
    if nodeid and message.startswith(nodeid):
        message = message[len(nodeid) :].lstrip(" :")
    message = re.sub(r"/tmp/planegate-wt-\w+/tree/", "", message)
    message = re.sub(r"git checkout [0-9a-f]+ && .*?(\]|$)", r"<repro>\1", message)
    message = re.sub(r"', \d+, '", "', N, '", message)
    return message[:160]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch", action="store_true", help="fill the cache, install test deps")
    parser.add_argument("--cache", type=Path, default=CACHE, help="sdist cache (.bench-cache/)")
    parser.add_argument("--only", action="append", help="bench only these projects")
    parser.add_argument("--keep", action="store_true", help="keep the temporary repositories")
    parser.add_argument(
        "--shards", type=int, default=0, help="also gate in N shards and merge (compared)"
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="time the gate and pytest N times each, alternating"
    )
    args = parser.parse_args(argv)
    chosen = tuple(p for p in PROJECTS if not args.only or p.name in args.only)
    if args.fetch:
        return fetch(args.cache, chosen)
    compile_planegate()
    warm_rewrite_caches()
    failed = False
    for project in chosen:
        outcome = bench(project, args.cache, args.keep, args.shards, max(1, args.runs))
        show(outcome)
        failed |= not outcome.status.startswith(("ok", "SKIPPED"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
