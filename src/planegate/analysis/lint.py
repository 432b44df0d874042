"""Property-plane lint: no wall-clock time, no network, no process-wide RNG (DESIGN §1).

Seeded generators (`random.Random(seed)`, `numpy.random.default_rng(seed)`) are fine; so are
`time.monotonic`/`perf_counter` (durations, not dates) and `urllib.parse` (no I/O).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from planegate import syntax
from planegate.analysis.prodscan import dotted, import_aliases
from planegate.findings import Finding, Severity, Step

WALL_CLOCK = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.localtime",
        "time.gmtime",
        "time.ctime",
        "time.asctime",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
    }
)
NETWORK_MODULES = frozenset(
    {
        "socket",
        "ssl",
        "requests",
        "httpx",
        "aiohttp",
        "urllib3",
        "urllib.request",
        "http.client",
        "ftplib",
        "smtplib",
        "websocket",
        "websockets",
    }
)
SEEDED = frozenset({"Random", "SystemRandom"})
NUMPY_GENERATORS = frozenset(
    {"default_rng", "Generator", "RandomState", "SeedSequence", "BitGenerator", "PCG64"}
    | {"PCG64DXSM", "MT19937", "Philox", "SFC64"}
)


@dataclass(frozen=True)
class Violation:
    rule: str
    line: int
    key: str
    message: str


def scan(source: str) -> list[Violation]:
    """Every violation in one property-plane module; a syntax error gives none."""
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return []
    aliases = import_aliases(tree)
    found: list[Violation] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found += _network_imports(node)
        elif isinstance(node, ast.Call):
            found += _call(node, dotted(node.func, aliases))
    return sorted(found, key=lambda v: (v.line, v.rule))


def _network_imports(node: ast.Import | ast.ImportFrom) -> list[Violation]:
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module:
            return []
        modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    else:
        modules = [alias.name for alias in node.names]
    hits = [m for m in modules if _is_network(m)]
    if not hits:
        return []
    name = hits[0]
    return [
        Violation(
            "PG581",
            node.lineno,
            f"import {name}",
            f"property test imports {name}: a property must not depend on the network",
        )
    ]


def _is_network(module: str) -> bool:
    parts = module.split(".")
    return any(".".join(parts[:end]) in NETWORK_MODULES for end in range(1, len(parts) + 1))


def _call(node: ast.Call, name: str | None) -> list[Violation]:
    if name is None:
        return []
    line, text = node.lineno, ast.unparse(node.func)
    if name in WALL_CLOCK:
        message = f"property test calls {text}(): wall-clock time differs on every run"
        return [Violation("PG580", line, name, message)]
    parts = name.split(".")
    if parts[0] == "random" and len(parts) == 2:
        return _stdlib_random(node, parts[1], line, text)
    if parts[:2] == ["numpy", "random"] and len(parts) == 3:
        return _numpy_random(node, parts[2], line, text)
    return []


def _seeded(node: ast.Call) -> bool:
    return bool(node.args) or any(k.arg in ("seed", "x") for k in node.keywords)


def _stdlib_random(node: ast.Call, func: str, line: int, text: str) -> list[Violation]:
    if func in SEEDED:
        if func == "SystemRandom" or not _seeded(node):
            return [_unseeded(line, text)]
        return []
    message = f"property test calls {text}(), the process-wide RNG shared by every test"
    return [Violation("PG582", line, f"random.{func}", message)]


def _numpy_random(node: ast.Call, func: str, line: int, text: str) -> list[Violation]:
    if func in NUMPY_GENERATORS:
        return [] if _seeded(node) or func == "Generator" else [_unseeded(line, text)]
    message = f"property test calls {text}(), a numpy.random module function (global state)"
    return [Violation("PG582", line, f"numpy.random.{func}", message)]


def _unseeded(line: int, text: str) -> Violation:
    return Violation(
        "PG583", line, f"{text}()", f"property test builds {text}() without a fixed seed"
    )


def added_findings(
    path: str, base_source: str | None, head_source: str | None, owner: str
) -> list[Finding]:
    """Errors for the violations the head adds to a property-plane file."""
    base = scan(base_source) if base_source is not None else []
    head = scan(head_source) if head_source is not None else []
    return [_finding(path, v, Severity.ERROR, owner) for v in _added(base, head)]


def base_findings(path: str, source: str | None, owner: str) -> list[Finding]:
    """Warnings for violations already on the base: a reviewer sees them, they do not fail."""
    return [_finding(path, v, Severity.WARNING, owner) for v in scan(source or "")]


def _added(base: Iterable[Violation], head: Iterable[Violation]) -> list[Violation]:
    seen = Counter((v.rule, v.key) for v in base)
    added = []
    for violation in head:
        if seen[(violation.rule, violation.key)]:
            seen[(violation.rule, violation.key)] -= 1
        else:
            added.append(violation)
    return added


def _finding(path: str, violation: Violation, severity: Severity, owner: str) -> Finding:
    suffix = " (already on the base)" if severity is Severity.WARNING else ""
    return Finding(
        violation.rule,
        Step.HUNKS,
        severity,
        violation.message + suffix,
        path=path,
        line=violation.line,
        owner=owner,
        plane="property",
    )
