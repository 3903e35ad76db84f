"""judgegraph's error hierarchy, in one place.

Errors the model caused (bad tool arguments, unparseable verdicts) never raise: they are returned to the
model as tool results or end as `valid=false` verdicts, and are recorded. The classes here are for errors
the caller or the environment caused, which do raise.
"""

from __future__ import annotations


class JudgegraphError(Exception):
    """Base class of every error judgegraph raises."""


class UnknownComponentError(JudgegraphError, LookupError):
    """A registry lookup found no component of that name."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind, self.name, self.known = kind, name, known
        listed = ", ".join(known) if known else "none registered"
        super().__init__(f"unknown {kind} {name!r}; known: {listed}")


class ConfigError(JudgegraphError, ValueError):
    """A judge spec, prompt or setting is malformed."""


class PrerequisiteError(JudgegraphError, RuntimeError):
    """An optional dependency is missing; the message carries the install line."""


class BackendError(JudgegraphError, RuntimeError):
    """The model endpoint failed in a way retries did not fix."""


class BackendUnavailableError(BackendError):
    """The model endpoint does not answer (down, wrong URL, or the embedded server would not start)."""
