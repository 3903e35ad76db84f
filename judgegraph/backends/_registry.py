"""Model backends: how a judge gets its model, one registration each. Built in: an OpenAI-compatible server at
`model_url` (`openai`, its profile detected; or named by a profile: `vllm`, `llama_cpp`, `generic`) and the
embedded llama.cpp server (`embedded`). A plugin adds one (an in-process model, another server it starts) by the
`judgegraph.backends` entry-point group, and `--backend NAME` picks it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from judgegraph.backends._client import ChatModel, ModelClient
from judgegraph.backends._embedded import EmbeddedServer
from judgegraph.backends._pool import ModelPool
from judgegraph.backends._profiles import BackendProfile, backend_profiles
from judgegraph.errors import UnknownComponentError, UsageError
from judgegraph.registry import Registry
from judgegraph.settings import Settings


class Stoppable(Protocol):
    """Something a backend started for its model (a server process), stopped when the judge closes."""

    async def stop(self) -> None: ...


@dataclass
class OpenedModel:
    """What a backend gives: the model (connected by the caller), what it started for it, and the URL that
    server answers at (for others to share it: an eval's many runs on one embedded server)."""

    client: ChatModel
    server: Stoppable | None = None
    url: str | None = None


ModelBackend = Callable[[Settings], Awaitable[OpenedModel]]
"""`backend(settings) -> OpenedModel`: make the model the settings describe (start what it needs)."""

model_backends: Registry[ModelBackend] = Registry("model backend", plugins="judgegraph.backends")


def _clients(url: str, profile: BackendProfile | None, s: Settings) -> ChatModel:
    """One client per comma-separated URL; several make a `ModelPool` (load balancing and failover)."""
    clients = [
        ModelClient(
            u.strip(),
            profile=profile,
            model=s.model_name,
            api_key=s.api_key,
            timeout_s=s.timeout_s,
            max_retries=s.max_retries,
        )
        for u in url.split(",")
        if u.strip()
    ]
    return clients[0] if len(clients) == 1 else ModelPool(clients)


def openai_compatible(profile: str | None) -> ModelBackend:
    """The backend for an OpenAI-compatible server at `model_url`, shaped by `profile` (None: detected)."""

    async def open_(s: Settings) -> OpenedModel:
        if not s.model_url:
            raise UsageError(f"the {profile or 'openai'} backend needs a server URL (--model URL)")
        return OpenedModel(_clients(s.model_url, backend_profiles.get(profile) if profile else None, s))

    return open_


async def _embedded(s: Settings) -> OpenedModel:
    """llama.cpp's server on this machine's CPU, started for the judge (its model from the settings)."""
    server = EmbeddedServer(n_threads=s.embedded_threads, model=s.embedded_model)
    url = await server.start()
    return OpenedModel(_clients(url, backend_profiles.get(EmbeddedServer.profile), s), server, url)


model_backends.register("openai", openai_compatible(None))
model_backends.register("embedded", _embedded)


def backend_name(s: Settings) -> str:
    """The backend the settings ask for: `backend` where set, else an OpenAI-compatible server where a URL is
    given, else the embedded one."""
    return s.backend or ("openai" if s.model_url else "embedded")


async def open_model(s: Settings) -> OpenedModel:
    """The model the settings describe, from its backend (what it needs started, started)."""
    return await model_backend(backend_name(s))(s)


def model_backend(name: str) -> ModelBackend:
    """A registered model backend, or the OpenAI-compatible one shaped by the backend profile of that name."""
    if name in model_backends:
        return model_backends.get(name)
    if name in backend_profiles:
        return openai_compatible(name)
    raise UnknownComponentError("model backend", name, sorted({*model_backends.names(), *backend_profiles.names()}))
