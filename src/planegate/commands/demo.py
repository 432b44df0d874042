"""`planegate demo`: build the bundled demo repository and gate honest and cheating patches."""

from __future__ import annotations

import argparse

from planegate.commands.common import progress_of


def run(args: argparse.Namespace) -> int:
    from planegate import demo

    return demo.run(progress_of(args))
