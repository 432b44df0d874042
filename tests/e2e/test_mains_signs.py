"""Signs main's own code shows under the same conditions are not the patch's.

Main here has what real suites have: a fixture test that reads a locked binary input and
checks only its header (it survives the fixture probe on main too), production code that opens
the input file its test hands it (a file another test reads too), and a dependency outside the
tree that appends its import finder to `sys.meta_path` when a test first uses it. An honest
patch passes with warnings. The cheats that would like to hide behind those relaxations still
fail: an always-true comparison, production code that newly opens the golden, a finder the
patch's code installs (its class main's), and a tree module named like the dependency.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.answers_support import Project
from helpers.attack_helper import without_secrets
from helpers.repo_helper import run_cli

HEADER = "tests/fix/test_elf.py::test_header_class"
BAD_MAGIC = "tests/fix/test_elf.py::test_bad_magic"
LABEL = "tests/fix/test_label.py::test_label_golden"
TITLE = "tests/fix/test_label.py::test_title_line"
FINDER = (
    "import sys\n\n\nclass _Importer:\n"
    "    def find_spec(self, fullname, path=None, target=None):\n        return None\n\n\n"
    "sys.meta_path.append(_Importer())\ntext_type = str\n"
)
TITLE_CODE = "\n\ndef title():\n    return 'Calc report'\n"
CORE = "def label(n):\n    return f'n={n}'\n" + TITLE_CODE
FILES: dict[str, str | bytes] = {
    "calc/__init__.py": "",
    "calc/core.py": CORE,
    "calc/elf.py": (
        "def header(path):\n    with open(path, 'rb') as handle:\n        data = handle.read()\n"
        "    if data[:4] != b'\\x7fELF':\n        raise ValueError('bad magic')\n"
        "    return data[4]\n"
    ),
    "calc/compat.py": "def text(x):\n    import sixlike\n\n    return sixlike.text_type(x)\n",
    "calc/finders.py": (
        "class Quiet:\n    def find_spec(self, fullname, path=None, target=None):\n"
        "        return None\n"
    ),
    "tests/fix/test_elf.py": (
        "from pathlib import Path\n\nimport pytest\n\nfrom calc.elf import header\n\n"
        "DATA = Path(__file__).parent / 'data'\n\n\n"
        "def test_header_class():\n    assert header(DATA / 'hello.bin') == 2\n\n\n"
        "def test_bad_magic(tmp_path):\n    data = (DATA / 'hello.bin').read_bytes()\n"
        "    bad = tmp_path / 'bad.bin'\n    bad.write_bytes(b'XXXX' + data[4:])\n"
        "    with pytest.raises(ValueError):\n        header(bad)\n"
    ),
    "tests/fix/test_label.py": (
        "from pathlib import Path\n\nfrom calc.core import label, title\n\n"
        "DATA = Path(__file__).parent / 'data'\n\n\n"
        "def test_label_golden():\n"
        "    assert label(3) == (DATA / 'label.txt').read_text()\n\n\n"
        "def test_title_line():  # main checks the first line only\n"
        "    assert title() == (DATA / 'report.txt').read_text().splitlines()[0]\n"
    ),
    "tests/fix/test_text.py": (
        "from calc.compat import text\n\n\ndef test_text():\n    assert text(3) == '3'\n"
    ),
    "tests/fix/data/hello.bin": b"\x7fELF\x02" + bytes(range(33, 97)),
    "tests/fix/data/label.txt": "n=3",
    "tests/fix/data/report.txt": "Calc report\n" + "a line of the body\n" * 8,
}
ALWAYS_EQUAL = (
    "class Label(str):\n    def __eq__(self, other):\n"
    "        return isinstance(other, str) or other is not None\n\n"
    "    __hash__ = str.__hash__\n\n\n"
    "def label(n):\n    return Label(f'N={n}')\n" + TITLE_CODE
)
MASKED_TITLE = ALWAYS_EQUAL.replace(
    "def label(n):\n    return Label(f'N={n}')\n" + TITLE_CODE,
    "def label(n):\n    return f'n={n}'\n\n\ndef title():\n    return Label('wrong')\n",
)
BRANCHES: dict[str, dict[str, str | bytes]] = {
    "honest": {"calc/core.py": "# labels\n" + CORE},
    "always-equal": {"calc/core.py": ALWAYS_EQUAL},
    "masked-title": {"calc/core.py": MASKED_TITLE},
    "reads-golden": {
        "calc/core.py": (
            "from pathlib import Path\n\n\ndef label(n):\n"
            "    root = Path(__file__).resolve().parent.parent\n"
            "    return (root / 'tests' / 'fix' / 'data' / 'label.txt').read_text()\n" + TITLE_CODE
        )
    },
    "installs-finder": {
        "calc/core.py": (
            "import sys\n\nfrom calc.finders import Quiet\n\n\ndef label(n):\n"
            "    sys.meta_path.append(Quiet())\n    return f'n={n}'\n" + TITLE_CODE
        )
    },
    "named-like-dependency": {"sixlike.py": FINDER},
    # the always-true label, and production code that ends the process (no name a scan looks
    # for) when it is handed the input it reads with a byte changed: the probe's session
    # never reaches the label's test
    "leaves-the-probe": {
        "calc/core.py": ALWAYS_EQUAL,
        "calc/elf.py": (
            "import os\n\nKNOWN = b'\\x7fELF\\x02' + bytes(range(33, 97))\n\n\n"
            "def header(path):\n    with open(path, 'rb') as handle:\n"
            "        data = handle.read()\n"
            "    if data[:4] != b'\\x7fELF':\n        raise ValueError('bad magic')\n"
            "    if data != KNOWN:\n        os.abort()\n"
            "    return data[4]\n"
        ),
    },
    # the same, but the session is interrupted as at Ctrl-C (pytest still runs its session's
    # end, and the channel's closing record with it)
    "interrupts-the-probe": {
        "calc/core.py": ALWAYS_EQUAL,
        "calc/elf.py": (
            "KNOWN = b'\\x7fELF\\x02' + bytes(range(33, 97))\n\n\n"
            "def header(path):\n    with open(path, 'rb') as handle:\n"
            "        data = handle.read()\n"
            "    if data[:4] != b'\\x7fELF':\n        raise ValueError('bad magic')\n"
            "    if data != KNOWN:\n        raise KeyboardInterrupt\n"
            "    return data[4]\n"
        ),
    },
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root: Path = tmp_path_factory.mktemp("mains-signs")
    site = root / "site"
    site.mkdir()
    (site / "sixlike.py").write_text(FINDER)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PLANEGATE_PROJECT_SITE", str(site))
        made = Project(root, FILES)
        for name, files in BRANCHES.items():
            made.branch(name, files)
        yield made


def found(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for step in report["steps"] for f in step["findings"] if f["rule"] == rule]


def folded(report: dict[str, Any], rule: str) -> set[str]:
    """The places of a rule's signs that repeat main's own behaviour: one notice in the
    findings, every place in its step's note."""
    prefix = f"main's own behaviour ({rule}, "
    notes = [n for step in report["steps"] for n in step["notes"] if n.startswith(prefix)]
    if not notes:
        return set()
    (note,) = notes
    return set(note.split("): ", 1)[1].split(", "))


def errors(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (f["rule"], f["message"][:160])
        for step in report["steps"]
        for f in step["findings"]
        if f["severity"] == "error"
    ]


BEGUN_BESIDE = "its sessions began beside the head's run"


def fixture_probe(report: dict[str, Any]) -> dict[str, Any]:
    probes: list[dict[str, Any]] = [p for p in report["probes"] if p["probe"] == "fixture data"]
    (probe,) = probes
    return probe


def test_an_honest_patch_is_not_blamed_for_mains_own_signs(project: Project) -> None:
    code, report = project.gate("honest")

    assert code == 0, errors(report)
    # main's own signs: summarised once per rule as a notice, every place in the step's note
    (insensitive,) = found(report, "PG113")
    assert folded(report, "PG113") == {HEADER, BAD_MAGIC, TITLE}
    assert (insensitive["severity"], insensitive["owner"]) == ("notice", "@org/goldens")
    assert insensitive["message"].startswith("3 signs repeat main's own behaviour")
    assert not found(report, "PG106")
    (read,) = found(report, "PG562")
    assert (read["path"], read["severity"]) == ("tests/fix/data/hello.bin", "notice")
    assert "main's production code opens it too" in read["message"]
    (finder,) = found(report, "PG112")
    assert "sys.meta_path changed: _Importer" in finder["message"]
    assert finder["severity"] == "notice"
    assert not [
        f for step in report["steps"] for f in step["findings"] if f["severity"] == "warning"
    ]
    assert not found(report, "PG107")
    (planes,) = [step for step in report["steps"] if step["step"] == "planes"]
    assert "fixture survivors compared with main: 3 survive there too, 0 caught" in planes["notes"]
    # main passes the bad-magic test with every byte of hello.bin changed: not run on the patch;
    # the two main passes with one byte changed only run so beside the probe's own run; main's
    # run passed every scoring test, so both began beside the head's run (probes/fixture/early.py)
    assert (fixture_probe(report)["tests"], fixture_probe(report)["detail"]) == (
        3,
        "1 not run: main's pass with every byte changed; "
        f"2 also run with every byte changed, beside it; {BEGUN_BESIDE}",
    )


@pytest.mark.parametrize("branch", ["honest", "masked-title", "reads-golden"])
def test_main_s_signs_read_from_the_digest_are_those_seen_on_the_base(
    project: Project, branch: str
) -> None:
    def verdict(report: dict[str, Any]) -> list[tuple[str, str, str]]:
        return sorted(
            (f["rule"], f["severity"], f.get("nodeid") or f.get("path") or "")
            for step in report["steps"]
            for f in step["findings"]
        )

    code, recorded = project.gate(branch)
    base_code, on_base = project.gate(branch, digest=False)

    assert (code, verdict(recorded)) == (base_code, verdict(on_base))
    (planes,) = [step for step in recorded["steps"] if step["step"] == "planes"]
    assert "main's signs read from main's run in the digest" in planes["notes"]
    (planes,) = [step for step in on_base["steps"] if step["step"] == "planes"]
    assert "main's signs read from main's run in the digest" not in planes["notes"]


def test_an_always_true_comparison_main_does_not_have_stays_pg106(project: Project) -> None:
    """The probe's session began beside the head's run, on its own export of the head's tree:
    the outcomes it takes from there catch what its session after the run would."""
    code, report = project.gate("always-equal")

    assert code != 0
    assert [(f["nodeid"], f["severity"]) for f in found(report, "PG106")] == [(LABEL, "error")]
    assert folded(report, "PG113") == {HEADER, BAD_MAGIC, TITLE}
    assert BEGUN_BESIDE in fixture_probe(report)["detail"]


def test_without_the_sandbox_the_fixture_probe_waits_for_the_head_s_run(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the sandbox nothing of the patch runs beside the scoring run (its child could
    write into the scoring run's tree): the probe's session runs after it, in its tree, and
    finds the same."""
    without_secrets(monkeypatch)
    code, report = project.gate("always-equal", "--no-sandbox")

    assert code != 0
    assert [(f["nodeid"], f["severity"]) for f in found(report, "PG106")] == [(LABEL, "error")]
    assert BEGUN_BESIDE not in fixture_probe(report)["detail"]
    assert fixture_probe(report)["tests"] == 3


def test_an_always_true_comparison_behind_a_byte_main_does_not_check_stays_pg106(
    project: Project,
) -> None:
    """Main's title test survives the one-byte probe (it checks the golden's first line); the
    patch's wrong title, equal to anything, survives every byte changed, main's does not."""
    code, report = project.gate("masked-title")

    assert code != 0
    assert [(f["nodeid"], f["severity"]) for f in found(report, "PG106")] == [(TITLE, "error")]
    assert folded(report, "PG113") == {HEADER, BAD_MAGIC}


def test_production_code_that_newly_opens_the_golden_stays_an_error(project: Project) -> None:
    code, report = project.gate("reads-golden")

    assert code == 5, errors(report)
    by_path = {f["path"]: f["severity"] for f in found(report, "PG562")}
    assert by_path == {"tests/fix/data/label.txt": "error", "tests/fix/data/hello.bin": "notice"}


def test_a_finder_the_patch_installs_is_tampering_though_main_wrote_its_class(
    project: Project,
) -> None:
    code, report = project.gate("installs-finder")

    assert code != 0
    tampered = [f for f in found(report, "PG107") if "sys.meta_path changed: Quiet" in f["message"]]
    assert tampered and tampered[0]["path"] == "calc/finders.py"
    assert not [f for f in found(report, "PG112") if "Quiet" in f["message"]]


def test_a_tree_module_named_like_the_dependency_is_not_the_dependency(project: Project) -> None:
    code, report = project.gate("named-like-dependency")

    assert code != 0
    (tampered,) = [f for f in found(report, "PG107") if "sys.meta_path" in f["message"]]
    assert tampered["path"] == "sixlike.py"
    assert not found(report, "PG112")


def test_main_s_signs_survive_sharding(project: Project, tmp_path: Path) -> None:
    """Each shard's base sessions travel in its evidence; the merge weighs the signs as one
    gate does (PG113 and warnings, never PG106 or PG107 for main's own signs)."""
    code, alone = project.gate("honest")
    root = str(project.repo.root)
    GATE = ("gate", "--base", "main", "--digest", str(project.digest))
    evidence = []
    for k in (1, 2):
        path = tmp_path / f"shard-{k}.json"
        done = run_cli("-C", root, *GATE, "--shard", f"{k}/2", "--evidence", str(path), "-q")
        assert path.is_file(), done.stderr
        evidence.append(str(path))
    done = run_cli("-C", root, *GATE, "--format", "json", "-q", "--merge", *evidence)
    merged = json.loads(done.stdout)
    assert done.returncode == code == 0, errors(merged)
    assert sorted(
        (f["rule"], f.get("nodeid")) for s in merged["steps"] for f in s["findings"]
    ) == sorted((f["rule"], f.get("nodeid")) for s in alone["steps"] for f in s["findings"])


def test_main_s_digest_records_its_signs(project: Project) -> None:
    """Main's run in the digest is traced and followed by main's fixture probe."""
    signs = json.loads(project.digest.read_text())["run"]["signs"]

    assert signs["survivors"] == sorted([BAD_MAGIC, HEADER, TITLE])
    assert signs["whole"] == [BAD_MAGIC]  # it writes its own header; the title its first line
    assert signs["probed"][LABEL] == ["tests/fix/data/label.txt"]
    assert signs["prod_reads"][HEADER] == ["tests/fix/data/hello.bin"]
    (finder,) = signs["harness"]
    assert "sys.meta_path changed: _Importer" in finder["event"]


@pytest.mark.parametrize("extra", [(), ("--no-sandbox",)])
@pytest.mark.parametrize("branch", ["leaves-the-probe", "interrupts-the-probe"])
def test_a_patch_that_ends_the_probe_s_session_does_not_end_its_survivors(
    project: Project, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...], branch: str
) -> None:
    """The probe's session stops at the header test (the patch's code aborts, or interrupts
    the session, on the changed input), before the always-true label's test: what it left
    without an outcome counts as surviving, in the session begun beside the head's run and in
    the one after it alike."""
    without_secrets(monkeypatch)
    code, report = project.gate(branch, *extra)

    assert code != 0, errors(report)
    assert [(f["nodeid"], f["severity"]) for f in found(report, "PG106")] == [(LABEL, "error")]
    detail = fixture_probe(report)["detail"]
    assert "its session ended without its closing record" in detail
    assert (BEGUN_BESIDE in detail) == (not extra)
