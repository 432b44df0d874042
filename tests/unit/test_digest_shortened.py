"""Main's digest is validated with its per-nodeid lists emptied when they hold strings alone
(wire.DIGEST.shortened): a digest is accepted and refused exactly as the full schema says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planegate import schemas, wire
from planegate.errors import InputDataError
from planegate.repo import digest_format
from planegate.repo.digest_format import Digest, MainRun, MainSource, RecordedSigns

SHA = "a" * 40
NODEIDS = tuple(f"tests/test_m.py::test_{n}" for n in range(50))


def _digest() -> dict[str, Any]:
    signs = RecordedSigns(
        prod_reads={NODEIDS[0]: ("data/a.json", "data/b.json")},
        probed={NODEIDS[1]: ("tests/data/x.json",)},
        survivors=(NODEIDS[1],),
    )
    run = MainRun({"python": "3.11"}, {NODEIDS[2]: ("failed", "boom")}, {}, signs)
    source = MainSource(
        ("tests/__init__.py", "tests/helpers.py"),
        ("shop/testing.py",),
        {"tests/test_m.py": tuple((f"test_{n}", "function") for n in range(50))},
    )
    digest = Digest(SHA, {"tests/conftest.py": "b" * 64}, {"fixture": NODEIDS}, run, source)
    value: dict[str, Any] = json.loads(digest_format.to_json(digest))
    return value


def _refusal(value: Any) -> str | None:
    try:
        wire.DIGEST.load(json.dumps(value), "digest.json")
    except InputDataError as error:
        return str(error).splitlines()[0]
    return None


def test_an_honest_digest_loads_whole() -> None:
    value = _digest()
    assert _refusal(value) is None
    loaded = digest_format.from_json(json.dumps(value), "digest.json")
    assert loaded.inventory == {"fixture": NODEIDS}
    assert loaded.run is not None and loaded.run.signs is not None
    assert loaded.run.signs.prod_reads == {NODEIDS[0]: ("data/a.json", "data/b.json")}
    assert loaded.source is not None and len(loaded.source.tests["tests/test_m.py"]) == 50


def _with(value: dict[str, Any], *path: Any, to: Any) -> dict[str, Any]:
    node: Any = value
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = to
    return value


@pytest.mark.parametrize(
    "path, bad",
    [
        (("inventory", "fixture", 7), 7),
        (("inventory", "fixture"), "tests/test_m.py::test_0"),
        (("inventory", "fixture", 49), None),
        (("run", "signs", "prod_reads", NODEIDS[0], 1), {"path": "x"}),
        (("run", "signs", "probed", NODEIDS[1]), "tests/data/x.json"),
        (("run", "signs", "survivors", 0), 3),
        (("inventory",), ["fixture"]),
        (("run", "signs", "prod_reads"), []),
        (("source", "imported", 1), 1),
        (("source", "shipped"), "shop/testing.py"),
        (("source", "tests", "tests/test_m.py", 3, 1), "doctest"),
        (("source", "tests", "tests/test_m.py", 4), ["test_4"]),
        (("source", "tests", "tests/test_m.py", 5), ["test_5", "function", "again"]),
        (("source", "tests", "tests/test_m.py", 6, 0), 6),
        (("source", "tests"), [["test_0", "function"]]),
        (("source",), {"imported": [], "shipped": []}),
    ],
)
def test_a_bad_item_is_named_as_the_full_schema_names_it(path: tuple[Any, ...], bad: Any) -> None:
    value = _with(_digest(), *path, to=bad)
    wrong = schemas.problem(value, "digest")
    assert wrong is not None
    assert _refusal(value) == f"digest.json: {wrong}"
