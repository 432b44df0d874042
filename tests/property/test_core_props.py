"""Properties of the pure core: plane membership and the digest root hash."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from planegate.config import load as config_mod
from planegate.config import planemap as planes
from planegate.gate.digest_check import compute_digest
from planegate.repo.digest_format import Digest, root_hash
from planegate.repo.hashing import bytes_sha256
from planegate.repo.snapshot import Snapshot
from planegate.steps.inventory import InventoryInput, inventory_findings

segment = st.sampled_from(["tests", "unit", "prop", "fix", "data", "a", "b"])
rel_dir = st.lists(segment, min_size=1, max_size=3).map("/".join)
test_file = st.builds(lambda d, n: f"{d}/test_{n}.py", rel_dir, st.sampled_from(["x", "y", "z"]))
nodeid = st.builds(lambda f, n: f"{f}::test_{n}", test_file, st.sampled_from(["one", "two"]))
pattern = st.one_of(
    rel_dir.map(lambda d: d + "/"),
    rel_dir.map(lambda d: d + "/**/test_x.py"),
    st.just("test_y.py"),
    st.just("**/prop/"),
    rel_dir.map(lambda d: "!" + d + "/"),
)


def make_config(
    prop: list[str], fix: list[str], prop_ids: list[str], fix_ids: list[str]
) -> config_mod.Config:
    text = json.dumps(
        {
            "version": 1,
            "planes": {
                "property": {"paths": prop, "nodeids": prop_ids},
                "fixture": {"paths": fix, "nodeids": fix_ids},
            },
        }
    )
    return config_mod.parse(text, "planegate.yml")  # JSON text is valid YAML


@given(
    st.lists(pattern, max_size=4),
    st.lists(pattern, max_size=4),
    st.lists(nodeid, max_size=3),
    st.lists(nodeid, max_size=3),
    st.lists(nodeid, min_size=1, max_size=12, unique=True),
    st.sets(nodeid, max_size=2),
)
def test_every_nodeid_gets_one_plane_or_a_finding(
    prop: list[str],
    fix: list[str],
    prop_ids: list[str],
    fix_ids: list[str],
    nodeids: list[str],
    frozen: set[str],
) -> None:
    plane_map = planes.PlaneMap(make_config(prop, fix, prop_ids, fix_ids), frozenset(frozen))
    found = inventory_findings(plane_map, InventoryInput(tuple(nodeids), (), {}), "@owner")
    flagged = {f.nodeid for f in found if f.rule in ("PG201", "PG202")}
    inventory = plane_map.inventory(nodeids)
    for node in nodeids:
        homes = [plane for plane, ids in inventory.items() if node in ids]
        assert len(homes) == 1
        if homes == [planes.UNCLASSIFIED]:
            assert node in flagged  # unclassified never defaults to a plane
        else:
            assert node not in flagged
    assert all(f.owner == "@owner" for f in found)


nodeid_text = st.text(alphabet="ab:[]", max_size=14).map(lambda rest: "t.py::" + rest)


def listed_by_definition(nodeid: str, entries: list[str]) -> bool:
    """docs/planes.md: an entry names the nodeid, its id without parameters, a class or
    function above it, or its file."""
    base = nodeid.split("[", 1)[0]
    parts = base.split("::")
    above = {"::".join(parts[:end]) for end in range(1, len(parts))}
    return bool({nodeid, base, *above} & set(entries))


@given(
    nodeid_text,
    st.lists(nodeid_text, max_size=4),
    st.lists(nodeid_text, max_size=4),
    st.data(),
)
def test_a_nodeid_is_listed_by_the_planes_whose_entries_cover_it(
    nodeid: str, prop_ids: list[str], fix_ids: list[str], data: st.DataObject
) -> None:
    covering = [nodeid, nodeid.split("[", 1)[0], nodeid.rsplit("::", 1)[0]]
    prop_ids.append(data.draw(st.sampled_from(covering)))  # often a hit, not only by chance
    plane_map = planes.PlaneMap(make_config([], [], prop_ids, fix_ids))
    expected = tuple(
        plane
        for plane, entries in (("property", prop_ids), ("fixture", fix_ids))
        if listed_by_definition(nodeid, entries)
    )
    assert plane_map.planes_of(nodeid) == expected
    assert plane_map.listed(nodeid) == bool(expected)


files_strategy = st.dictionaries(
    st.sampled_from(
        [
            "planegate.yml",
            "tests/prop/test_a.py",
            "tests/fix/data/g.txt",
            "tests/conftest.py",
            "src/app.py",
            "README.md",
            "tests/fix/test_b.py",
        ]
    ),
    st.binary(max_size=20),
    min_size=1,
)
CONFIG = make_config(["tests/prop/"], ["tests/fix/"], [], [])


def digest_of(files: dict[str, bytes]) -> Digest:
    snap = Snapshot(
        "c0ffee",
        tuple(sorted(files)),
        files.get,
        lambda p: bytes_sha256(files[p]) if p in files else None,
    )
    return compute_digest(snap, CONFIG, {})


@given(files_strategy, st.data())
def test_digest_root_changes_iff_a_protected_byte_changes(
    files: dict[str, bytes], data: st.DataObject
) -> None:
    path = data.draw(st.sampled_from(sorted(files)))
    new_bytes = data.draw(st.binary(max_size=20))
    changed = {**files, path: new_bytes}
    protected = path != "src/app.py" and path != "README.md"
    same_root = digest_of(files).root == digest_of(changed).root
    assert same_root == (not protected or new_bytes == files[path])


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8), st.text("0123456789abcdef", min_size=64, max_size=64)
    )
)
def test_root_hash_is_order_independent(files: dict[str, str]) -> None:
    assert root_hash(files) == root_hash(dict(reversed(list(files.items()))))
