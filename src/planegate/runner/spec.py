"""The one place a pytest run spec is built as the gate runs pytest: the base's ini options,
the configured plugins, arguments, timeout and allowed environment."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from planegate.config.load import Config
from planegate.progress import QUIET, Progress
from planegate.runner import env as child_env
from planegate.runner import session


def pytest_args(cfg: Config) -> tuple[str, ...]:
    """The configured pytest arguments, with Hypothesis's seed fixed when it is a plugin."""
    args = list(cfg.pytest_args)
    if "hypothesis" in cfg.pytest_plugins:
        args += ["--hypothesis-seed", str(cfg.seed)]
    return tuple(args)


def build(
    tree: Path, cfg: Config, ini_options: Mapping[str, Any], **changes: Any
) -> session.RunSpec:
    """The gate's run spec for `tree` (`ini_options` are the base's), with `changes` applied."""
    spec = session.RunSpec(
        tree=tree,
        ini_options=ini_options,
        plugins=cfg.pytest_plugins,
        extra_args=pytest_args(cfg),
        timeout=cfg.pytest_timeout,
        env_allow=cfg.env_allow,
        network=cfg.sandbox_network,
    )
    return replace(spec, **changes)


@dataclass(frozen=True)
class Sessions:
    """What every session in one tree shares: the configuration, the base's pytest setup,
    the parent environment the child's minimal environment is cut from, and the tree's files
    that are main's evidence (the overlay's: every session in the tree trusts them), and where
    a session shows how many tests are done."""

    tree: Path
    cfg: Config
    ini_options: Mapping[str, Any] = field(hash=False)
    environ: Mapping[str, str] | None = field(default=None, hash=False)
    trusted: frozenset[str] = frozenset()
    progress: Progress = field(default=QUIET, hash=False, compare=False)  # tests done of total

    @functools.cached_property
    def ci(self) -> Mapping[str, str]:
        """What the tree's tox configuration sets, read once, when its first session starts
        (the overlay has made the file main's): a later session gets the same, whatever an
        earlier run's code left in the tree's `tox.ini`."""
        return child_env.ci_settings(self.tree)

    def spec(self, **changes: Any) -> session.RunSpec:
        pinned = {"trusted": self.trusted, "ci": self.ci}
        return build(self.tree, self.cfg, self.ini_options, **{**pinned, **changes})

    def run(self, **changes: Any) -> session.RunResult:
        return session.run(self.spec(**changes), self.progress, parent_env=self.environ)
