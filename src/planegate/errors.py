"""Errors that stop a command. Each owns its exit code; the CLI is their one handler."""

from __future__ import annotations

from planegate import exitcodes


class PlanegateError(Exception):
    """A failure the user can act on: a one-line message, an optional hint."""

    exit_code = exitcodes.INTERNAL

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(PlanegateError):
    exit_code = exitcodes.USAGE


class UnknownRevision(UsageError):
    """A ref or commit this clone does not hold."""


class InputDataError(PlanegateError):
    """A malformed digest, ledger, manifest or report file."""

    exit_code = exitcodes.DATA


class ConfigError(PlanegateError):
    exit_code = exitcodes.CONFIG


class ServiceUnavailable(PlanegateError):
    exit_code = exitcodes.UNAVAILABLE


class InternalError(PlanegateError):
    exit_code = exitcodes.INTERNAL
