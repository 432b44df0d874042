"""The gate-written ini, as properties: list items come back whole, one a line, and an item an
ini file would read as a comment is refused."""

from __future__ import annotations

import shlex

import iniconfig
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planegate.errors import ConfigError
from planegate.runner.pytest_ini import LINELIST, render

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


@given(st.sampled_from(["#", ";"]), ITEM)
def test_a_line_list_item_an_ini_file_would_read_as_a_comment_is_refused(
    start: str, rest: str
) -> None:
    with pytest.raises(ConfigError, match="'markers' has an item starting with"):
        render({"markers": [f"{start}{rest}"]})
