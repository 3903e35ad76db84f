"""judgegraph's error hierarchy, in one place.

Errors the model caused (bad tool arguments, unparseable verdicts) never raise: they are returned to the
model as tool results or end as `valid=false` verdicts, and are recorded. The classes here are for errors
the caller or the environment caused, which do raise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import ValidationError


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


class UsageError(JudgegraphError, RuntimeError):
    """A component was used the wrong way: before it was opened, after it was closed, or from the wrong place."""


class InvalidInputError(JudgegraphError, ValueError):
    """A request, trajectory or argument the caller passed cannot be used; the message says what is wrong."""


class EndpointError(BackendError):
    """A call the endpoint did not answer with a usable body. `kind` names the failure the way the OpenAI
    SDK's exceptions do; `transient` says whether trying again (here or elsewhere) can help."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, transient: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.transient = transient

    def __str__(self) -> str:
        what = f"HTTP {self.status}: " if self.status else ""
        return f"{self.kind}: {what}{self.args[0]}"


class MalformedResponse(EndpointError):
    """A 200 whose body is not a chat completion (truncated or garbage)."""

    def __init__(self, message: str) -> None:
        super().__init__("MalformedResponse", message, transient=True)


class StoreError(JudgegraphError, RuntimeError):
    """The trajectory store cannot be used as asked (a newer schema, a run finished that never started)."""


class RunNotFoundError(StoreError, KeyError):
    """No run has that id (or the id prefix names several)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class SandboxError(JudgegraphError, RuntimeError):
    """The sandbox itself failed (the program's own failures are in its result, not raised)."""


class SandboxUnavailableError(SandboxError):
    """This sandbox backend cannot run on this machine; the message says why."""


class RemoteRunError(JudgegraphError):
    """A judgment failed on a remote (Ray) worker; the message carries the worker's error."""


# The model's faults: raised inside a tool or a parser, caught there, and turned into a recorded result.


class ToolFailure(JudgegraphError):
    """Raised by a tool for a failure the model should read (bad index, missing evidence)."""


class VerdictParseError(JudgegraphError, ValueError):
    """The model's reply holds no usable verdict; the message is fed back to the model on its retry."""


class UnsafeExpression(JudgegraphError, ValueError):
    """An answer's expression is not safe to evaluate (outside the token whitelist, or too large a power)."""


def field_problems(e: ValidationError | Sequence[Mapping[str, object]], root: str = "", whole: str = "value") -> str:
    """A validation error in the caller's terms: each wrong or missing field by its path (`candidates`,
    `request.tests.0.output`; `whole` where the object itself is wrong) and what is wrong, joined by `; ` (no
    model class names, no documentation URLs)."""
    parts = []
    for err in e.errors(include_url=False) if isinstance(e, ValidationError) else e:
        loc = err["loc"]
        steps = loc if isinstance(loc, tuple | list) else (loc,)
        path = ".".join(str(p) for p in (root, *steps) if p != "") or whole
        message = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "not a field of this object"
        parts.append(f"{path}: {message}")
    return "; ".join(parts)
