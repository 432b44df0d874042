"""planegate.yml errors: file, line and key path, a nearest-key hint, exit 78, no traceback."""

from __future__ import annotations

import pytest

from planegate.config import load as config
from planegate.errors import ConfigError

VALID = """\
version: 1
planes:
  property:
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths:
      - "tests/fix/"
      - "tests/golden/"
"""


def error_of(text: str, path: str = "planegate.yml") -> str:
    with pytest.raises(ConfigError) as caught:
        config.parse(text, path)
    return caught.value.message


def test_valid_file_loads_with_defaults() -> None:
    loaded = config.parse(VALID, "planegate.yml")
    assert loaded.planes["fixture"].paths == ("tests/fix/", "tests/golden/")
    assert loaded.planes["fixture"].owner == "@org/goldens"
    assert loaded.planes["property"].owner == "unowned"
    assert (loaded.manifest, loaded.ledger) == ("tests/fixtures.lock.json", "freeze_ledger.jsonl")


def test_wrong_type_names_line_and_key_path() -> None:
    text = VALID.replace('      - "tests/golden/"', "      - 12")
    assert (
        error_of(text)
        == "planegate.yml:9 planes.fixture.paths[1]: expected a string, got an integer"
    )


def test_a_nodeid_that_is_not_a_string_is_named_among_thousands() -> None:
    items = "".join(f'      - "tests/fix/test_a.py::test_{n}"\n' for n in range(3000))
    text = VALID.replace(
        '    owner: "@org/goldens"\n',
        f'    owner: "@org/goldens"\n    nodeids:\n{items}      - 12\n',
    )
    assert error_of(text) == (
        "planegate.yml:3008 planes.fixture.nodeids[3000]: expected a string, got an integer"
    )


def test_unknown_key_suggests_the_nearest() -> None:
    text = VALID.replace('    paths: ["tests/prop/"]', '    pathz: ["tests/prop/"]')
    assert (
        error_of(text)
        == "planegate.yml:4 planes.property.pathz: unknown key 'pathz'; did you mean 'paths'?"
    )


def test_bad_yaml_names_the_line() -> None:
    message = error_of("version: 1\nplanes:\n  property: [\n")
    assert message.startswith("planegate.yml:4: not valid YAML")


def test_bad_json_spelling_names_the_line() -> None:
    message = error_of('{"version": 1,\n "planes": }', "planegate.json")
    assert message.startswith("planegate.json:2: not valid JSON")


def test_missing_required_key() -> None:
    assert error_of("version: 1\n") == "planegate.yml:1 (top level): 'planes' is required"


def _listing(count: int) -> str:
    items = "".join(f'      - "tests/fix/test_{n // 50}.py::test_case_{n}"\n' for n in range(count))
    return VALID.replace(
        '    owner: "@org/goldens"\n', f'    owner: "@org/goldens"\n    nodeids:\n{items}'
    )


def test_a_file_listing_50000_nodeids_loads() -> None:
    text = _listing(50_000)
    assert len(text.encode()) > 2 * 1024 * 1024  # over the 1 MiB the cap used to be
    assert len(config.parse(text, "planegate.yml").planes["fixture"].nodeids) == 50_000


def test_a_file_over_the_value_cap_is_refused_while_it_is_composed() -> None:
    text = "version: 1\nplanes:\n  property:\n    nodeids:\n" + "      - a\n" * 300_001
    message = error_of(text)
    assert message.startswith("planegate.yml:")
    assert message.endswith(
        "planes.property.nodeids: holds more than 300000 values (aliases counted expanded)"
    )


def test_a_text_over_1_mib_is_read_by_libyaml_alone() -> None:
    padding = "#" * (2 * 1024 * 1024) + "\n"
    assert error_of(padding + "version: 1\nplanes: !!map {}\n") == (
        "planegate.yml:3: not valid YAML: an explicit tag (read only in a text of at most 1 MiB)"
    )
    assert error_of(padding + "version: 1\nplanes: {}\n").startswith("planegate.yml:3 planes:")


def test_misspelled_path_names_the_file_that_exists() -> None:
    error = config.missing_config_error("scoring_map.json", {"scoring_map.yaml"}, "in .")
    assert error.message == "scoring_map.json: no such file in .; scoring_map.yaml exists"


def test_a_pattern_or_nodeid_written_from_dot_slash_means_the_roots() -> None:
    # gitignore's lines never start with `./`, which would match nothing: `./x` is the root's x
    from planegate.config.planemap import PlaneMap

    text = VALID.replace('"tests/prop/"', '"./tests/prop/"').replace(
        '      - "tests/golden/"\n',
        '      - "tests/golden/"\n    nodeids: ["./tests/mixed.py::test_one"]\n'
        '    admit: ["./regressions/"]\n',
    )
    plane_map = PlaneMap(config.parse(text, "planegate.yml"), frozenset())
    assert plane_map.plane_of("tests/prop/test_a.py::test_a") == "property"
    assert plane_map.plane_of("tests/mixed.py::test_one") == "fixture"
    assert plane_map.plane_of_file("regressions/test_claim.py") == "fixture"
    assert plane_map.plane_of_file("lib/regressions/test_claim.py") is None  # the root's only
