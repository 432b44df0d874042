"""A file too big to parse is reported (PG526), not parsed: memory and time stay small."""

from __future__ import annotations

from helpers.project import CONFIG
from planegate import sourcesize
from planegate.analysis import prodscan
from planegate.analysis.hunks import limits
from planegate.analysis.hunks.batch import FileChange, analyze_files
from planegate.config import load as config_load
from planegate.config import planemap

DENSE = "x = [" + "1," * (5 * 1024 * 1024 // 2) + "]\n"  # 5 MiB on one line


def test_the_finding_names_the_file_its_size_and_the_limit() -> None:
    (finding,) = prodscan.scan_change("calc/big.py", None, DENSE, prodscan.DataPaths(), "me")
    assert (finding.rule, finding.path, finding.owner) == ("PG526", "calc/big.py", "me")
    assert finding.message == (
        f"calc/big.py: {len(DENSE):,} bytes, over the analysis limit of 1,048,576 "
        "(analysis.max_file_bytes): not analysed"
    )


def test_a_big_base_is_not_parsed_either() -> None:
    small = "import sys\n\nsys._getframe()\n"
    (change,) = analyze_files([FileChange("tests/test_a.py", DENSE, small, "fixture", "a", True)])
    assert change.rule == "PG526"
    found = prodscan.scan_change("calc/a.py", DENSE, small, prodscan.DataPaths(), "a")
    assert [f.rule for f in found] == ["PG553"]  # the head's construct counts as added


def test_the_limit_is_configurable() -> None:
    config = config_load.parse(CONFIG + "analysis:\n  max_file_bytes: 2048\n", "planegate.yml")
    assert config.max_file_bytes == 2048
    assert config_load.parse(CONFIG, "planegate.yml").max_file_bytes == limits.MAX_FILE_BYTES
    text = "x = 1\n" * 400
    found = prodscan.scan_change("calc/a.py", None, text, prodscan.DataPaths(), "a", 2048)
    assert [f.rule for f in found] == ["PG526"]
    assert prodscan.scan_change("calc/a.py", None, text, prodscan.DataPaths(), "a") == []


def test_multibyte_text_is_measured_in_bytes() -> None:
    assert sourcesize.size_of("é" * 10) == 20
    assert limits.oversized("é" * 600, 1024)  # 600 characters, 1,200 bytes
    assert not limits.oversized("é" * 600, 1200)


ORDINARY = (
    "def handler_{n}(request, *, retries=3):\n"
    '    """Answer request {n} after at most `retries` attempts."""\n'
    "    for attempt in range(retries):\n"
    "        value = request.get('key_{n}', attempt) * 2  # doubled\n"
    "        if value > {n}:\n"
    "            return value\n"
    "    return None\n\n"
)


def test_ordinary_source_just_under_the_byte_limit_is_parsed() -> None:
    text, n = "", 0
    while len(text) < limits.MAX_FILE_BYTES - 400:
        text += ORDINARY.format(n=n)
        n += 1
    assert sourcesize.parse(text) is not None
    assert prodscan.scan_change("calc/handlers.py", None, text, prodscan.DataPaths(), "a") == []


def test_a_dense_file_under_the_byte_limit_is_refused_for_its_tokens() -> None:
    dense = "x = [" + "1," * 200_000 + "]\n"  # 400 kB, 400,000 tokens
    assert sourcesize.parse(dense) is None
    (finding,) = prodscan.scan_change("calc/dense.py", None, dense, prodscan.DataPaths(), "me")
    assert finding.message == (
        "calc/dense.py: more than 300,000 tokens, over what planegate parses: not analysed"
    )
    assert planemap.test_kinds(dense + "def test_a():\n    pass\n") == []
