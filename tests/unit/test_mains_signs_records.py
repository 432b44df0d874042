"""Main's signs as records: in the digest, across the action's phases, compared without
checkpoint or tree folder, and nothing run on the base when the head shows no sign."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from helpers.answers_support import Project
from planegate.gate import exchange_signs, on_base_signs
from planegate.gate.context import Context
from planegate.runner.fixture_probe import ProbeResult
from planegate.runner.session import RunResult, Tamper
from planegate.runner.traced import Reads
from planegate.steps import mains_signs
from planegate.steps.mains_signs import MainsSigns

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


def test_main_s_digest_records_its_signs(project: Project) -> None:
    """Main's run in the digest is traced and followed by main's fixture probe."""
    signs = json.loads(project.digest.read_text())["run"]["signs"]

    assert signs["survivors"] == sorted([BAD_MAGIC, HEADER, TITLE])
    assert signs["whole"] == [BAD_MAGIC]  # it writes its own header; the title its first line
    assert signs["probed"][LABEL] == ["tests/fix/data/label.txt"]
    assert signs["prod_reads"][HEADER] == ["tests/fix/data/hello.bin"]
    (finder,) = signs["harness"]
    assert "sys.meta_path changed: _Importer" in finder["event"]


def test_harness_signs_are_compared_without_checkpoint_or_tree_folder() -> None:
    event = "harness changed: import finder F for /tmp/tmpab_cd123/tree/src (after collection)"
    sign = mains_signs.harness_sign(Tamper(event, "/site/six.py", 3))
    assert sign == Tamper("harness changed: import finder F for <tree>/src", "/site/six.py", 3)
    assert mains_signs.harness_sign(Tamper("sys._getframe called", "a.py", 1)) is None
    seen = Tamper("harness changed: sys.meta_path changed: F (when t.py::b reported its call)")
    assert mains_signs.harness_anchors([seen], ("t.py::a", "t.py::b", "t.py::c")) == (
        "t.py::a",
        "t.py::b",
    )
    copy = Tamper("harness changed: x (when t.py::b[a@b]@2 reported its call)")
    assert mains_signs.harness_anchors([copy], ("t.py::b[a@b]",)) == ("t.py::b[a@b]",)
    last = Tamper("harness changed: sys.meta_path changed: F (at the end of the session)")
    assert mains_signs.harness_anchors([last], ("t.py::a", "t.py::b")) == ("t.py::b",)
    base = MainsSigns(harness=(Tamper("harness changed: sys.meta_path changed: F"),), traced=True)
    assert mains_signs.mains_harness(seen, base)
    assert not mains_signs.mains_harness(seen, MainsSigns(harness=base.harness))  # not traced
    elsewhere = Tamper(seen.event, "sixlike.py", 4)
    assert not mains_signs.mains_harness(elsewhere, base)


def test_an_oracle_read_is_mains_only_under_every_key_the_head_shows() -> None:
    head = {
        "t.py::a": Reads(prod=("data/in.bin",)),
        "t.py::b": Reads(test=("data/in.bin",), prod=("data/in.bin",)),
        "t.py::c": Reads(test=("data/gold.txt",)),
    }
    assert mains_signs.oracle_reads(head) == {
        "t.py::a": ("data/in.bin",),
        "t.py::b": ("data/in.bin",),
    }
    partly = MainsSigns(prod_reads={"t.py::a": ("data/in.bin",)}, traced=True)
    assert not mains_signs.mains_read("data/in.bin", head, partly)
    both = MainsSigns(prod_reads=dict.fromkeys(("t.py::a", "t.py::b"), ("data/in.bin",)))
    assert not mains_signs.mains_read("data/in.bin", head, both)  # the session did not close
    closed = MainsSigns(prod_reads=both.prod_reads, traced=True)
    assert mains_signs.mains_read("data/in.bin", head, closed)


def test_the_base_signs_survive_the_exchange_between_the_action_phases() -> None:
    signs = MainsSigns(
        survivors=("a",),
        caught=("b",),
        prod_reads={"a": ("x.bin",)},
        harness=(Tamper("harness changed: e", "/s.py", 2),),
        traced=True,
        problems=("p",),
    )
    written = json.loads(json.dumps(exchange_signs.to_dict(signs)))
    assert exchange_signs.from_dict(written) == signs
    assert exchange_signs.from_dict(None) == MainsSigns()  # an older run.json: no excuse
    with pytest.raises(TypeError):
        exchange_signs.from_dict({**written, "traced": "yes"})


def test_nothing_runs_on_the_base_when_the_head_shows_no_sign() -> None:
    run = RunResult(
        collected=("t.py::a",),
        selected=("t.py::a",),
        outcomes={},
        collect_errors=(),
        closed=True,
        exit_status=0,
        timed_out=False,
        output="",
        tampering=(Tamper("sys._getframe called", "calc/core.py", 3),),
        reads={"t.py::a": Reads(test=("data/gold.txt",), prod=())},
    )
    no_context = cast(Context, object())  # touching it would raise: no tree is exported
    assert on_base_signs.observe(no_context, run, ProbeResult(("t.py::a",))) == MainsSigns()
