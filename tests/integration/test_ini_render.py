"""The gate-written ini reads back, through pytest's own ini reader, as the base's options."""

from __future__ import annotations

import shlex
from pathlib import Path

import iniconfig
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planegate.errors import ConfigError
from planegate.runner import ini
from planegate.runner.ini import LINELIST, render

# what an option item can hold: printable text, no line breaks of any kind
ITEM = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85"),
    max_size=12,
)
ARGS_KEYS = ("addopts", "testpaths", "python_files", "norecursedirs", "pythonpath", "x_plugin")


def read_back(text: str) -> dict[str, str]:
    section = iniconfig.IniConfig("gate.ini", data=text)["pytest"]
    return {name: section[name] for name in section}


def as_pytest_reads(key: str, raw: str) -> list[str]:
    """pytest's getini for a list option: `linelist` one item a line, the rest shlex.split."""
    if key in LINELIST:
        return [line.strip() for line in raw.split("\n") if line.strip()]
    return shlex.split(raw)


@given(st.dictionaries(st.sampled_from(ARGS_KEYS), st.lists(ITEM, max_size=4), max_size=4))
def test_list_items_of_shell_split_options_come_back_whole(options: dict[str, list[str]]) -> None:
    back = read_back(render(dict(options)))
    for key, items in options.items():
        assert as_pytest_reads(key, back[key]) == items


def comment_like(text: str) -> bool:
    return text.strip().startswith(("#", ";"))


@given(st.lists(ITEM.filter(lambda t: t.strip() == t and t and not comment_like(t)), max_size=4))
def test_line_list_items_stay_one_a_line(items: list[str]) -> None:
    back = read_back(render({"markers": items, "filterwarnings": items}))
    assert as_pytest_reads("markers", back["markers"]) == items
    assert as_pytest_reads("filterwarnings", back["filterwarnings"]) == items


def test_the_toml_addopts_with_a_marker_expression_is_three_arguments() -> None:
    text = render({"addopts": ["-m", "not property", "--strict-markers"], "xfail_strict": True})
    assert shlex.split(read_back(text)["addopts"]) == ["-m", "not property", "--strict-markers"]
    assert read_back(text)["xfail_strict"] == "true"
    assert ini.testpaths({"testpaths": "tests 'my tests'"}) == ["tests", "my tests"]


def test_real_pytest_runs_with_the_rendered_marker_expression(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "gate.ini").write_text(
        render({"addopts": ["-m", "not slow"], "markers": ["slow: marks a slow test"]}), "utf-8"
    )
    (tmp_path / "test_m.py").write_text(
        "import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    assert False\n\n\n"
        "def test_quick():\n    assert True\n",
        "utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", "gate.ini", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout


@given(st.sampled_from(["#", ";"]), ITEM)
def test_a_line_list_item_an_ini_file_would_read_as_a_comment_is_refused(
    start: str, rest: str
) -> None:
    with pytest.raises(ConfigError, match="'markers' has an item starting with"):
        render({"markers": [f"{start}{rest}"]})
