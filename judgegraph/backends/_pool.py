"""Several OpenAI-compatible endpoints serving one model: load balancing and failover.

The usual deployment is one vLLM server per GPU. Each call goes to the healthy endpoint with the fewest
calls in flight (ties taken in turn), so long generations do not pile up on one server. An endpoint whose
call fails for the endpoint's own reasons (connection refused, timeout, 5xx after retries) is taken out for
`cooldown_s` and the call moves on to the next one; after the cooldown it is tried again, and one success
brings it back. A bad request (4xx) is not failed over: every endpoint would refuse it alike.
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends._client import ChatOptions, ModelClient
from judgegraph.backends._profiles import BackendProfile
from judgegraph.errors import BackendUnavailableError, ConfigError, UsageError
from judgegraph.schema._trajectory import ModelTurn

log = logging.getLogger(__name__)


@dataclass
class _Member:
    client: ModelClient
    in_flight: int = 0
    down_until: float = 0.0
    calls: int = 0
    failures: int = 0

    def healthy(self, now: float) -> bool:
        return now >= self.down_until


class ModelPool:
    """A `ChatModel` over several `ModelClient`s; all must serve the same model."""

    def __init__(self, clients: list[ModelClient], *, cooldown_s: float = 10.0) -> None:
        if not clients:
            raise ConfigError("a model pool needs at least one endpoint")
        self.members = [_Member(c) for c in clients]
        self.cooldown_s = cooldown_s
        self._turn = itertools.count()
        self._reference: ModelClient | None = None

    @property
    def profile(self) -> BackendProfile:
        return self._connected().profile

    @property
    def model(self) -> str:
        return self._connected().model

    def _connected(self) -> ModelClient:
        if self._reference is None:
            raise UsageError("call `await pool.connect()` first")
        return self._reference

    async def connect(self) -> None:
        """Connect every endpoint; those that do not answer start out down. Fails only if none answers."""
        errors: list[str] = []
        live: list[_Member] = []
        for m in self.members:
            try:
                await m.client.connect()
            except BackendUnavailableError as e:
                m.down_until = time.monotonic() + self.cooldown_s
                errors.append(str(e))
                log.warning("model endpoint %s is down at start: %s", m.client.base_url, e)
                continue
            live.append(m)
        if not live:
            raise BackendUnavailableError("no model endpoint answers:\n  " + "\n  ".join(errors))
        if problem := _mismatch(live):
            await self.close()  # a pool that refuses to start leaves no connection open
            raise BackendUnavailableError(problem)
        self._reference = live[0].client
        for m in self.members:
            if m not in live:  # tried again after its cooldown, as the same model
                m.client.assume(self._reference.model, self._reference.profile)

    async def close(self) -> None:
        for m in self.members:
            await m.client.close()

    def _order(self) -> list[_Member]:
        """Healthy endpoints by load (ties in turn), then the ones cooling down, soonest back first."""
        now = time.monotonic()
        start = next(self._turn) % len(self.members)
        rotated = self.members[start:] + self.members[:start]
        healthy = sorted((m for m in rotated if m.healthy(now)), key=lambda m: m.in_flight)
        down = sorted((m for m in rotated if not m.healthy(now)), key=lambda m: m.down_until)
        return healthy + down

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        """One chat completion on the least-loaded healthy endpoint, failing over to the others."""
        turn: ModelTurn | None = None
        attempts = 0
        for m in self._order():
            m.in_flight += 1
            m.calls += 1
            try:
                turn, endpoint_failed = await m.client.attempt(messages, **options)
            finally:
                m.in_flight -= 1
            attempts += turn.attempts
            if not endpoint_failed:
                m.down_until = 0.0
                break
            m.failures += 1
            m.down_until = time.monotonic() + self.cooldown_s
            log.warning("model endpoint %s failed (%s); failing over", m.client.base_url, turn.error)
        assert turn is not None
        turn.attempts = attempts
        return turn

    def stats(self) -> list[dict[str, Any]]:
        """Per endpoint: calls sent, failures, calls in flight, whether it is up now."""
        now = time.monotonic()
        return [
            {
                "endpoint": m.client.base_url,
                "calls": m.calls,
                "failures": m.failures,
                "in_flight": m.in_flight,
                "up": m.healthy(now),
            }
            for m in self.members
        ]


def _mismatch(live: list[_Member]) -> str | None:
    """Why the answering endpoints cannot serve one judge: different models, or different backends."""
    models = {m.client.model for m in live}
    if len(models) > 1:
        served = ", ".join(f"{m.client.base_url}: {m.client.model}" for m in live)
        return (
            f"the endpoints serve different models ({served}); a judge's verdicts must come from one model. "
            "Serve the same model everywhere (vLLM --served-model-name) or set the model name."
        )
    profiles = {m.client.profile.name for m in live}
    if len(profiles) > 1:
        return f"the endpoints run different backends ({', '.join(sorted(profiles))})"
    return None
