"""The planes step's findings from the probes of the tests a patch flips (PG120-PG124).

A strict-comparison failure is the patch's only when the comparison method it names is new
or changed on the head: a class main already had, compared as main's tests compare it, is
main's design, reported as a notice.
"""

from __future__ import annotations

import ast
import functools
import re

from planegate import sourcesize, untrusted
from planegate.analysis.definitions import def_chain, def_source
from planegate.config.planemap import file_of
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.probes.answers import plan as kinds
from planegate.probes.answers.observed import OBSERVED
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure
from planegate.probes.canaries.plan import KINDS as CANARIES
from planegate.probes.honest.plan import KINDS as HONEST

RULE = {
    kinds.FRESH: "PG120",
    kinds.REPEAT: "PG121",
    kinds.REVERSED: "PG121",
    kinds.ALONE: "PG121",
    kinds.PLAIN: "PG122",
    kinds.STRICT: "PG123",
}
WHAT = {
    kinds.FRESH: "the fix does not generalise: it fails on inputs the frozen seed never drew",
    kinds.REPEAT: "the answer depends on call history: run twice in one process",
    kinds.REVERSED: "the answer depends on call history: run after the rest of its file, reversed",
    kinds.ALONE: "the answer depends on call history: run alone in a fresh process",
    kinds.PLAIN: "the answer depends on the test harness: called plainly, with pytest and "
    "Hypothesis out of sight",
    kinds.STRICT: "the comparison is decided by the patch's code",
}
DELEGATED = re.compile(
    r"comparison delegated to (?P<target>[\w.<>]+)\.(?P<method>__\w+__) "
    r"\((?P<path>[^:()]+)(?::(?P<line>\d+))?\)"
)


def findings(ctx: GitFacts, answers: AnswerProbes) -> list[Finding]:
    owner = ctx.author
    # a failure of a kind no probe claims is the answer probes' (PG124): never dropped
    found = [
        _failure(ctx, failure, owner)
        for failure in answers.failures
        if failure.probe not in CANARIES
        and failure.probe not in HONEST
        and failure.probe != OBSERVED
    ]
    left_out: dict[str, list[str]] = {}
    for probe, nodeid in answers.unprobed:
        left_out.setdefault(nodeid, []).append(probe)
    found += [
        Finding(
            "PG124",
            Step.PLANES,
            Severity.ERROR,
            untrusted.one_line(
                f"{nodeid} flips (fails on main, passes on the patch) but was not probed "
                f"({', '.join(probes)}): the probe budget ran out"
            ),
            path=file_of(nodeid),
            owner=owner,
            plane=ctx.plane_map.plane_of(nodeid),
            nodeid=nodeid,
        )
        for nodeid, probes in sorted(left_out.items())
    ]
    return found


def notes(answers: AnswerProbes) -> tuple[str, ...]:
    if not answers.flipped:
        return ()
    probes = [r for r in answers.records if r.probe in kinds.KINDS]
    seconds = sum(r.seconds for r in probes)
    found = [
        f"probed {len(answers.flipped)} tests the patch flips with {len(probes)} probes "
        f"in {seconds:.1f} s"
    ]
    if answers.not_applicable:
        names = ", ".join(sorted({n for _, n in answers.not_applicable})[:5])
        found.append(f"plain call not applicable to {len(answers.not_applicable)}: {names}")
    return tuple(found)


def _failure(ctx: GitFacts, failure: ProbeFailure, owner: str) -> Finding:
    rule = RULE.get(failure.probe, "PG124")
    path: str | None = file_of(failure.nodeid)
    line = None
    severity = Severity.ERROR
    what = WHAT.get(failure.probe, f"the {failure.probe} probe failed")
    match = DELEGATED.search(failure.message) if failure.probe == kinds.STRICT else None
    if match is not None:
        path, line = match["path"], int(match["line"]) if match["line"] else None
        if not method_changed(ctx, match["path"], match["target"], match["method"], line):
            severity = Severity.NOTICE
            what = "the comparison is decided by a method main already has"
    return Finding(
        rule,
        Step.PLANES,
        severity,
        untrusted.one_line(
            f"{failure.nodeid}: {what} ({failure.probe} probe): {failure.message}; "
            f"repro: {failure.repro}"
        ),
        path=path,
        line=line,
        owner=owner,
        plane=ctx.plane_map.plane_of(failure.nodeid),
        nodeid=failure.nodeid,
    )


def method_changed(
    ctx: GitFacts, path: str, target: str, method: str, line: int | None = None
) -> bool:
    """Whether `target.method` (a class's qualified name) differs between base and head. The
    method is found by its class chain; in a class built at run time (`type(name, bases,
    attrs)` from functions of the file) it is the function defined at `line`, found on main
    by the names of the functions and classes around it. A file the patch left as main has
    it changes nothing."""
    head_text, base_text = ctx.head.text(path), ctx.base.text(path)
    if head_text is not None and head_text == base_text:
        return False
    head = method_source(head_text, target, method)
    if head is None and line is not None:
        chain = def_chain(head_text, line)
        head = None if chain is None else def_source(head_text, chain)
        return head is None or head != def_source(base_text, chain or ())
    return head is None or head != method_source(base_text, target, method)


@functools.lru_cache(maxsize=64)
def method_source(source: str | None, target: str, method: str) -> str | None:
    """The dumped AST of the method of the class `target` names (its module's name first,
    so the longest tail of it that is a class chain of the file), or of the class itself
    when the method is not a def in it. Kept per (source, target, method): every lie of a
    parametrized test names the same method, and a file is parsed once, not once a lie."""
    if source is None:
        return None
    module = sourcesize.parse(source)
    if module is None:
        return None
    parts = target.split(".")
    for start in range(len(parts)):
        found = _class_chain(module.body, parts[start:])
        if found is not None:
            own = [s for s in found.body if isinstance(s, ast.FunctionDef) and s.name == method]
            return ast.dump(own[-1] if own else found)
    return None


def _class_chain(body: list[ast.stmt], names: list[str]) -> ast.ClassDef | None:
    found: ast.ClassDef | None = None
    for name in names:
        found = next((s for s in body if isinstance(s, ast.ClassDef) and s.name == name), None)
        if found is None:
            return None
        body = found.body
    return found
