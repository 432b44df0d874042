"""The small gated project most tests build: its configuration, files and fixture manifest."""

from __future__ import annotations

from planegate.config import manifest as fixtures
from planegate.repo.hashing import bytes_sha256

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
    data: ["tests/fix/data/"]
pytest:
  plugins: ["hypothesis"]
  triage_runs: 0
"""

PROJECT: dict[str, str | bytes] = {
    "planegate.yml": CONFIG,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "CODEOWNERS": "* @org/maintainers\n",
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n",
    "tests/prop/test_add_props.py": (
        "from hypothesis import given, strategies as st\n\nfrom calc.core import add\n\n\n"
        "@given(st.integers(), st.integers())\ndef test_add_commutes(a, b):\n"
        "    assert add(a, b) == add(b, a)\n"
    ),
    "tests/fix/test_label.py": (
        "from pathlib import Path\n\nfrom calc.core import label\n\n\n"
        "def test_label_golden():\n"
        "    expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
        "    assert label(3) == expected\n"
    ),
    "tests/fix/data/label.txt": "n=3",
}


def manifest_for(files: dict[str, str | bytes]) -> str:
    hashes = {
        path: bytes_sha256(content.encode() if isinstance(content, str) else content)
        for path, content in files.items()
        if path.startswith("tests/fix/data/")
    }
    return fixtures.render(fixtures.lock(None, hashes, "2026-12-01"))
