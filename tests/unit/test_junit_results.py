"""JUnit XML to outcomes (junit/results.py) and the runners' filters (junit/filters.py)."""

from __future__ import annotations

import pytest

from planegate.config.junit_section import check_id_format
from planegate.config.load import parse
from planegate.errors import ConfigError
from planegate.junit import filters, results

XML = b"""<testsuites><testsuite name="s">
<testcase classname="Paths" name="idempotent" time="0.25" file="t/p.cpp"/>
<testcase classname="Paths" name="no_dots"><failure message="dot left">a/./b</failure></testcase>
<testcase classname="Paths" name="crash"><error message="signal 11"/></testcase>
<testcase classname="Timing" name="slow"><skipped message="Disabled"/></testcase>
</testsuite></testsuites>"""


def test_each_testcase_is_one_id_with_its_outcome() -> None:
    cases = results.parse(XML, "out/junit.xml", "{classname}::{name}")
    assert cases.ids == ("Paths::idempotent", "Paths::no_dots", "Paths::crash", "Timing::slow")
    words = {n: o.outcome for n, o in cases.outcomes.items()}
    assert words == {
        "Paths::idempotent": "passed",
        "Paths::no_dots": "failed",
        "Paths::crash": "error",
        "Timing::slow": "skipped",
    }
    assert cases.outcomes["Paths::no_dots"].message == "dot left a/./b"
    assert cases.outcomes["Paths::idempotent"].duration == 0.25


def test_the_id_format_may_use_the_file_attribute() -> None:
    cases = results.parse(XML, "x.xml", "{file}::{name}")
    assert cases.ids[0] == "t/p.cpp::idempotent"


def test_an_id_reported_twice_keeps_its_worst_outcome() -> None:
    twice = b"""<testsuite><testcase classname="A" name="b"/>
    <testcase classname="A" name="b"><failure/></testcase><testcase classname="A" name="b"/>
    </testsuite>"""
    cases = results.parse(twice, "x.xml", "{classname}::{name}")
    assert cases.ids == ("A::b",)
    assert cases.outcomes["A::b"].outcome == "failed"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"<testsuites><testsuite>", "not JUnit XML"),
        (b"<html/>", "not JUnit XML"),
        (b'<!DOCTYPE x [<!ENTITY a "b">]><testsuite/>', "document type declaration"),
    ],
)
def test_a_report_that_is_not_junit_xml_names_its_file(data: bytes, why: str) -> None:
    with pytest.raises(results.XmlProblem, match=f"^out/r.xml: .*{why}"):
        results.parse(data, "out/r.xml", "{classname}::{name}")


@pytest.mark.parametrize("fmt", ["{klass}::{name}", "plain", "{name"])
def test_an_id_format_naming_other_fields_is_a_configuration_error(fmt: str) -> None:
    with pytest.raises(ConfigError, match=r"junit\.id"):
        check_id_format(fmt, "planegate.yml")


def test_each_runner_filter_leaves_the_frozen_names_out() -> None:
    ids = ["Timing::slow", "Net::fetch.retry"]
    assert filters.arguments("ctest", ids) == ["-E", r"^(fetch\.retry|slow)$"]
    assert filters.arguments("go", ids) == ["-skip", r"^(fetch\.retry|slow)$"]
    assert filters.arguments("cargo", ids) == ["--skip", "fetch.retry", "--skip", "slow", "--exact"]
    assert filters.arguments("jest", ids) == ["--testNamePattern", r"^(?!(fetch\.retry|slow)$)"]
    assert filters.arguments("none", ids) == []
    assert filters.arguments("ctest", []) == []


def test_the_command_says_whether_the_filter_deselected() -> None:
    text, filtered = filters.command("ctest {deselect} -j4", "ctest", ["T::slow"])
    assert (text, filtered) == ("ctest -E '^(slow)$' -j4", True)
    assert filters.command("ctest -j4", "ctest", ["T::slow"]) == ("ctest -j4", False)
    assert filters.command("ctest {deselect}", "ctest", []) == ("ctest ", False)


JUNIT_FILE = "version: 1\nplanes:\n  property: {}\n  fixture: {}\nrunner: junit\n"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("", r"^planegate\.yml:1 \(top level\): 'junit' is required$"),
        (
            'junit:\n  command: make\n  xml: [a.xml]\n  id: "{klass}"\n',
            r"^planegate\.yml:9 junit\.id: expected a format naming only \{classname\}",
        ),
        (
            "junit:\n  command: make\n  xml: [a.xml]\n  filter: maven\n",
            r"^planegate\.yml:9 junit\.filter: expected one of none, ctest, go, cargo, jest",
        ),
        ("junit:\n  command: make\n", r"^planegate\.yml:6 junit: 'xml' is required$"),
    ],
)
def test_a_bad_junit_section_is_one_line_naming_file_and_line(section: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        parse(JUNIT_FILE + section, "planegate.yml")
    assert raised.value.exit_code == 78


def test_a_junit_section_loads() -> None:
    text = JUNIT_FILE + (
        'junit:\n  command: "ctest {deselect}"\n  xml: ["build/*.xml"]\n'
        '  id: "{file}::{name}"\n  filter: ctest\n  timeout: 60\n  env: [CC]\n'
    )
    cfg = parse(text, "planegate.yml")
    assert cfg.runner == "junit"
    assert cfg.junit is not None
    assert (cfg.junit.command, cfg.junit.xml, cfg.junit.id_format) == (
        "ctest {deselect}",
        ("build/*.xml",),
        "{file}::{name}",
    )
    assert (cfg.junit.filter, cfg.junit.timeout, cfg.junit.env_allow) == ("ctest", 60.0, ("CC",))


# node:test's reporter: top-level tests straight under <testsuites>, describe blocks as nested
# <testsuite>s, every classname "test"
NODE_XML = b"""<testsuites>
<testcase name="top" classname="test"/>
<testsuite name="props"><testcase name="commutes" classname="test"/>
  <testsuite name="inner"><testcase name="deep" classname="test"><failure message="x"/></testcase>
  </testsuite>
  <testcase name="after" classname="test"/>
</testsuite>
</testsuites>"""


def test_every_testcase_counts_wherever_it_sits_with_its_suite() -> None:
    cases = results.parse(NODE_XML, "out.xml", "{suite}::{name}")
    assert cases.ids == ("::top", "props::commutes", "inner::deep", "props::after")
    assert cases.outcomes["inner::deep"].outcome == "failed"
    assert results.parse(NODE_XML, "out.xml", "{classname}::{name}").ids[0] == "test::top"


def test_a_deeply_nested_report_is_read_without_recursion() -> None:
    depth = 5000
    data = b"<testsuites>" + b"<testsuite name='s'>" * depth
    data += b"<testcase name='t' classname='c'/>" + b"</testsuite>" * depth + b"</testsuites>"
    assert results.parse(data, "deep.xml", "{suite}::{name}").ids == ("s::t",)


def test_the_node_filter_leaves_out_every_part_of_the_frozen_ids_and_the_root() -> None:
    args = filters.arguments("node", ["props::slow one", "::top.level"])
    assert args == ["--test-name-pattern", r"^(?!(<root>|props|slow\ one|top\.level)$)"]


def test_a_shard_never_leaves_out_an_id_of_its_own_that_shares_a_name() -> None:
    elsewhere = ["A::slow", "B::fast", "slow::other"]
    kept = ["C::slow"]
    assert filters.safe_to_leave_out("ctest", elsewhere, kept) == ["B::fast", "slow::other"]
    # node matches describe blocks too: an id whose block is named like a kept test stays in
    assert filters.safe_to_leave_out("node", elsewhere, kept) == ["B::fast"]
