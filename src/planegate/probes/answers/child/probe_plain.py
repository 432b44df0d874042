"""Tests called plainly, in an environment that gives nothing away: `--probe-plain-seed S`.

A pytest plugin module for the answer probes. Each selected test function is called by this
plugin instead of pytest's own call, with its fixtures as usual, but:

- a `@given` test runs as a plain loop over `--probe-plain-examples` examples generated
  beforehand (seed S), outside Hypothesis' engine: no recursion-limit change, no build
  context, nothing for the code under test to recognise;
- during each call the test harness's modules (pytest, Hypothesis, pluggy, the test modules)
  are out of `sys.modules` and no `PYTEST_*` variable is in `os.environ`;
- a profile or trace hook that the code under test installed (its function is a file under
  the rootdir) fails the test: such a hook can watch for `test_*` frames.

A test this cannot run plainly (an inferred strategy, `st.data()` draws, `note()`, every
example rejected) is skipped, and the gate reports it as not applicable.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from planegate.probes.answers.child.options import PLAIN_EXAMPLES as EXAMPLES
from planegate.probes.answers.child.options import PLAIN_SEED as SEED
from planegate.probes.answers.child.probe_fresh import given_function
from planegate.probes.answers.child.probe_repeat import COPY

if TYPE_CHECKING:
    from planegate.runner.child.plugin_api import PluginContext

# top-level module names (prefixes) of the test harness, hidden during a plain call
HARNESS = ("pytest", "_pytest", "pluggy", "hypothesis", "_hypothesis", "iniconfig", "xdist")
HARNESS_PACKAGES = frozenset({"execnet", "tests"})


class NotApplicable(Exception):
    """The test cannot run as a plain call."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(SEED, type=int, default=None, help="call tests plainly (examples: seed)")
    parser.addoption(EXAMPLES, type=int, default=100, help="examples per @given test")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    config = pyfuncitem.config
    seed = config.getoption(SEED)
    function = pyfuncitem.obj
    if seed is None or inspect.iscoroutinefunction(getattr(function, "__func__", function)):
        return None
    hook = watching_hook(str(config.rootpath))
    if hook is not None:
        raise AssertionError(
            f"a {hook} of the code under test is installed: it can watch the tests run"
        )
    names = pyfuncitem._fixtureinfo.argnames
    fixtures = {name: pyfuncitem.funcargs[name] for name in names}
    try:
        if given_function(function) is not None:
            plain_loop(function, fixtures, int(seed), int(config.getoption(EXAMPLES)))
        else:
            with bare():
                function(**fixtures)
    except NotApplicable as why:
        if pyfuncitem.stash.get(COPY, False):
            return None  # a repeated run still runs, as pytest would call it
        pytest.skip(f"not applicable to a plain call: {why}")
    return True


def plain_loop(function: Any, fixtures: dict[str, Any], seed: int, count: int) -> None:
    """Call a `@given` test's own function once per generated example."""
    from hypothesis.errors import (
        HypothesisDeprecationWarning,
        HypothesisException,
        UnsatisfiedAssumption,
    )

    inner = function.hypothesis.inner_test
    bound = (function.__self__,) if hasattr(function, "__self__") else ()
    ran = 0
    for example in examples(function, seed, count):
        try:
            with bare(), warnings.catch_warnings():
                warnings.simplefilter("ignore", HypothesisDeprecationWarning)
                inner(*bound, **fixtures, **example)
        except UnsatisfiedAssumption:
            continue
        except HypothesisException as error:
            raise NotApplicable(f"{type(error).__name__}: {error}") from None
        except Exception as error:
            shown = ", ".join(f"{k}={v!r}" for k, v in example.items())
            raise AssertionError(
                f"falsified outside Hypothesis' engine by {inner.__name__}({shown}): "
                f"{type(error).__name__}: {error}"
            ) from None
        ran += 1
    if not ran:
        raise NotApplicable("no generated example was accepted")


def examples(function: Any, seed: int, count: int) -> list[dict[str, Any]]:
    """`count` examples of the test's strategies, drawn before any call of the test."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fixed_seed
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    strategies = dict(function.hypothesis._given_kwargs)
    if any(value is Ellipsis for value in strategies.values()):
        raise NotApplicable("an inferred strategy (`...`)")
    found: list[dict[str, Any]] = []

    @fixed_seed(seed)
    @settings(
        max_examples=max(1, count),
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(st.fixed_dictionaries(strategies))
    def collect(example: dict[str, Any]) -> None:
        found.append(example)

    try:
        collect()
    except HypothesisException as error:
        raise NotApplicable(f"{type(error).__name__}: {error}") from None
    return found


@contextlib.contextmanager
def bare() -> Iterator[None]:
    """The harness's modules out of sys.modules, no PYTEST_* variable, for one call."""
    hidden = {name: module for name, module in sys.modules.items() if _harness(name)}
    for name in hidden:
        del sys.modules[name]
    variables = {name: os.environ[name] for name in list(os.environ) if name.startswith("PYTEST_")}
    for name in variables:
        del os.environ[name]
    try:
        yield
    finally:
        for name in [n for n in sys.modules if _harness(n)]:
            del sys.modules[name]
        sys.modules.update(hidden)
        os.environ.update(variables)


def _harness(name: str) -> bool:
    top, last = name.split(".", 1)[0], name.rsplit(".", 1)[-1]
    return (
        top.startswith(HARNESS)
        or top in HARNESS_PACKAGES
        or last.startswith("test_")
        or last.endswith("_test")
        or last == "conftest"
    )


def watching_hook(rootdir: str) -> str | None:
    """A profile or trace hook whose function is a file under the rootdir, as `kind (file)`."""
    root = os.path.realpath(rootdir) + os.sep
    hooks = {
        "profile hook": sys.getprofile(),
        "trace hook": sys.gettrace(),
        "thread profile hook": getattr(threading, "_profile_hook", None),
        "thread trace hook": getattr(threading, "_trace_hook", None),
    }
    for kind, hook in hooks.items():
        target = getattr(hook, "__func__", hook)
        code = getattr(target, "__code__", None)
        if code is None:
            continue
        path = os.path.realpath(code.co_filename)
        if path.startswith(root) and "site-packages" not in Path(path).parts:
            return f"{kind} ({os.path.relpath(path, root)}:{code.co_firstlineno})"
    return None


def plugin(_options: Mapping[str, Any], context: PluginContext, /) -> object:
    """This module's hooks as the child registers them (`runner/child/plugin_api.py`)."""
    return context.hooks_of(sys.modules[__name__])
