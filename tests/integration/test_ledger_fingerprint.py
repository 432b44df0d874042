"""The environment fingerprint a freeze records, read from the real interpreter."""

from __future__ import annotations

import platform

from helpers.ledger_cases import new_freeze
from planegate.freeze.events import FreezeEvent
from planegate.freeze.write import env_fingerprint


def test_env_fingerprint() -> None:
    fingerprint = env_fingerprint()
    assert fingerprint["python"] == platform.python_version()
    assert fingerprint["platform"] == platform.platform()
    assert isinstance(fingerprint["cpu_count"], int)
    assert fingerprint["cpu_count"] >= 1
    assert "pytest" in fingerprint["packages"]
    assert "no-such-package-here" not in env_fingerprint(("no-such-package-here",))["packages"]
    event = new_freeze(env_fingerprint=fingerprint)
    assert isinstance(event, FreezeEvent)
    assert event.env_fingerprint == fingerprint
