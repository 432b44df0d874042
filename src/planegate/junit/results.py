"""JUnit XML to outcomes, read with junitparser: every `testcase` becomes one test id, formed
by the configuration's `id` format from its classname, name and file attributes and the name of
the `testsuite` that holds it.

The XML is written by the project's own command, so it is read as untrusted data: a size
limit, no document type declarations (no entity expansion), and a one-line error that names
the file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from xml.etree.ElementTree import Element

from junitparser import Error, Failure, JUnitXml, JUnitXmlError, Skipped, TestCase

from planegate import untrusted
from planegate.runner.session import Outcome

MAX_XML_BYTES = 64 * 1024 * 1024
# the outcome that stands when one id is reported more than once: the worst one
RANK = {"error": 0, "failed": 1, "skipped": 2, "passed": 3}


class XmlProblem(ValueError):
    """A report that cannot be read: its file and why, in one line."""


@dataclass(frozen=True)
class Cases:
    """What one or more JUnit reports say: every id in the order first seen, its outcome."""

    ids: tuple[str, ...]
    outcomes: Mapping[str, Outcome]


def test_id(case: TestCase, id_format: str, suite: str = "") -> str:
    values = {
        "classname": case.classname or "",
        "name": case.name or "",
        "file": case._elem.get("file") or "",  # junitparser keeps unknown attributes on _elem
        "suite": suite,
    }
    return id_format.format_map(values)


def every_case(root: Element) -> Iterator[tuple[TestCase, str]]:
    """Every `testcase` in document order, wherever it sits (under `testsuites` itself, as
    node:test writes its top-level tests, or in nested `testsuite`s, as it writes describe
    blocks), with the name of the innermost `testsuite` that holds it ("" for none). An
    explicit stack: the XML's depth is the command's to choose."""
    stack: list[tuple[Iterator[Element], str]] = [(iter(root), _suite_name(root, ""))]
    while stack:
        children, suite = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "testcase":
            yield TestCase.fromelem(child), suite  # type: ignore[no-untyped-call]
        elif child.tag == "testsuite":
            stack.append((iter(child), _suite_name(child, suite)))


def _suite_name(elem: Element, outer: str) -> str:
    return (elem.get("name") or "") if elem.tag == "testsuite" else outer


def outcome_of(case: TestCase, nodeid: str) -> Outcome:
    results = list(case.result)
    duration = float(case.time or 0.0)
    for kind, word in ((Error, "error"), (Failure, "failed"), (Skipped, "skipped")):
        found = [r for r in results if isinstance(r, kind)]
        if found:
            message = " ".join(filter(None, (found[0].message, found[0].text)))
            return Outcome(nodeid, word, message.strip(), duration)
    return Outcome(nodeid, "passed", "", duration)


def parse(data: bytes, where: str, id_format: str) -> Cases:
    """One report's cases; XmlProblem names the file when the bytes are not JUnit XML."""
    if len(data) > MAX_XML_BYTES:
        raise XmlProblem(f"{where}: over {MAX_XML_BYTES} bytes")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise XmlProblem(f"{where}: a document type declaration (not read)")
    try:
        xml = JUnitXml.fromstring(data)
        cases = list(every_case(xml._elem))
    except (JUnitXmlError, SyntaxError, ValueError, TypeError) as exc:
        raise XmlProblem(f"{where}: not JUnit XML: {untrusted.one_line(str(exc))}") from exc
    return merge([_one(cases, id_format)])


def _one(cases: Iterable[tuple[TestCase, str]], id_format: str) -> Cases:
    ids: list[str] = []
    outcomes: dict[str, Outcome] = {}
    for case, suite in cases:
        nodeid = test_id(case, id_format, suite)
        outcome = outcome_of(case, nodeid)
        if nodeid not in outcomes:
            ids.append(nodeid)
            outcomes[nodeid] = outcome
        elif RANK[outcome.outcome] < RANK[outcomes[nodeid].outcome]:
            outcomes[nodeid] = outcome
    return Cases(tuple(ids), outcomes)


def merge(parts: Iterable[Cases]) -> Cases:
    """Several reports as one: an id reported twice keeps its worst outcome."""
    ids: list[str] = []
    outcomes: dict[str, Outcome] = {}
    for part in parts:
        for nodeid in part.ids:
            outcome = part.outcomes[nodeid]
            if nodeid not in outcomes:
                ids.append(nodeid)
                outcomes[nodeid] = outcome
            elif RANK[outcome.outcome] < RANK[outcomes[nodeid].outcome]:
                outcomes[nodeid] = outcome
    return Cases(tuple(ids), outcomes)
