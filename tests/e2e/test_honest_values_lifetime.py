"""The honest-values check splits each assert's operands into hidden names; those names must
not keep the values alive after the assert. cachetools checks that a value its cache holds
weakly is gone after `gc.collect()`: with the operands kept, main's own test failed on every
honest patch (PG101, "flaky under the patch"). Nor may they die sooner than pytest's own
rewriter lets them: attrs asserts `hash(C()) != hash(C())` for a hash by identity, which
holds only while the first `C()` is alive when the second is made."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo
from helpers.seed_project import cli, findings, gate_json

CACHE = (
    "import weakref\nfrom fractions import Fraction\n\n\n"
    "class Count(Fraction):  # an int subclass takes no weak reference; a Fraction's does\n"
    "    pass\n\n\n"
    "class Cache:\n    def __init__(self):\n        self.held = weakref.WeakValueDictionary()\n"
    "        self.made = 0\n\n"
    "    def get(self, key):\n        if key not in self.held:\n"
    "            self.made += 1\n            value = Count(self.made)\n"
    "            self.held[key] = value\n            return value\n"
    "        return self.held[key]\n"
)
WEAK_TEST = (
    "import gc\nimport unittest\n\nfrom calc.cache import Cache\n\n\n"
    "class WeakTest(unittest.TestCase):\n"
    "    def test_a_value_nothing_holds_is_made_again(self):\n"
    "        cache = Cache()\n"
    "        self.assertEqual(cache.get(0), 1)\n"
    "        gc.collect()\n"
    "        self.assertEqual(cache.get(0), 2)\n\n\n"
    "def test_the_same_with_an_assert():\n"
    "    cache = Cache()\n"
    "    assert cache.get(0) == 1\n"
    "    gc.collect()\n"
    "    assert cache.get(0) == 2\n\n\n"
    "class ById:\n    pass\n\n\n"
    "def test_two_objects_hash_apart():\n"
    "    assert hash(ById()) != hash(ById())\n"
)


def test_an_asserts_values_live_as_long_as_in_pytest_no_longer_no_shorter(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "weak")
    repo.commit(
        "project",
        {
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/cache.py": CACHE,
            "tests/__init__.py": "",
            "tests/test_weak.py": WEAK_TEST,
        },
    )
    assert cli(repo.root, "init", "--write").returncode == 0
    assert cli(repo.root, "lock").returncode == 0
    repo.git("add", "--all")
    repo.git("commit", "-q", "-m", "planegate")
    repo.branch("honest")
    repo.commit("a comment", {"calc/cache.py": "# a comment\n" + CACHE})
    code, report = gate_json(repo.root)
    assert code == 0, [f["message"] for f in findings(report)]
