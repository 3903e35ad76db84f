"""Where the model runs: a configured URL, or the embedded CPU server when none is configured. Nothing is
connected or started until a run asks the model something: a batch decided by rules never starts a model."""

from __future__ import annotations

import asyncio
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends._client import ChatModel, ChatOptions, ModelClient
from judgegraph.backends._embedded import EmbeddedServer
from judgegraph.backends._pool import ModelPool
from judgegraph.backends._profiles import BackendProfile, backend_profiles
from judgegraph.errors import JudgegraphError, UsageError
from judgegraph.schema import ModelRequest, ModelTurn
from judgegraph.settings import Settings


class LazyModel:
    """The endpoint's model, connected (the embedded server started) on first use.

    Graphs call `connect()` before they shape a request by the backend's profile. When no model can be
    reached, `connect()` does not raise: `chat()` then answers a turn whose `error` says why, so the one
    request that needed a model ends invalid with the reason and a batch goes on; the next use tries again."""

    def __init__(self, endpoint: ModelEndpoint) -> None:
        self._endpoint = endpoint
        self._lock = asyncio.Lock()
        self._failure: str | None = None

    @property
    def connected(self) -> ChatModel | None:
        """The connected model, if one was needed so far."""
        return self._endpoint.opened

    @property
    def profile(self) -> BackendProfile:
        live = self.connected
        if live is not None:
            return live.profile
        if self._failure is not None:  # nothing to shape requests for: the call will report the failure
            return backend_profiles.get(self._endpoint.settings.backend or "generic")
        raise UsageError("the model is not connected yet: `await model.connect()` before reading its profile")

    @property
    def model(self) -> str:
        live = self.connected
        return live.model if live is not None else ""

    async def connect(self) -> None:
        async with self._lock:
            if self.connected is not None:
                return
            try:
                await self._endpoint.open()
                self._failure = None
            except (JudgegraphError, OSError) as e:
                self._failure = f"no model is reachable: {e}"

    async def close(self) -> None:
        await self._endpoint.close()

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        await self.connect()
        live = self.connected
        if live is None:
            request = ModelRequest(messages=messages, tools=options.get("tools") or [])
            return ModelTurn(request=request, error=self._failure or "no model is reachable")
        return await live.chat(messages, **options)


class ModelEndpoint:
    """Owns the model connection for a judge's lifetime: opens the client, starts and stops the embedded server."""

    def __init__(self, settings: Settings, client: ChatModel | None = None) -> None:
        """`client`: a model to use instead of one the settings name (a teacher, a test double); it is
        connected and closed here like any other."""
        self.settings = settings
        self.embedded: EmbeddedServer | None = None
        self._given = client
        self._client: ChatModel | None = None
        self.lazy = LazyModel(self)
        """What runs are given: the model, connected when a run first needs it."""

    @property
    def opened(self) -> ChatModel | None:
        """The connected model, or None while no run has needed one."""
        return self._client

    @property
    def client(self) -> ChatModel:
        if self._client is None:
            raise UsageError("the model endpoint is not open")
        return self._client

    async def open(self) -> ChatModel:
        """Connect (starting the embedded server first when no URL is set); idempotent.

        Several comma-separated URLs make a `ModelPool` (load balancing and failover).
        """
        if self._client is not None:
            return self._client
        if self._given is not None:
            await self._given.connect()
            self._client = self._given
            return self._given
        s = self.settings
        url = s.model_url
        profile = backend_profiles.get(s.backend) if s.backend else None
        if url is None:
            self.embedded = EmbeddedServer(n_threads=s.embedded_threads, model=s.embedded_model)
            url = await self.embedded.start()
            profile = profile or backend_profiles.get(EmbeddedServer.profile)
        urls = [u.strip() for u in url.split(",") if u.strip()]
        clients = [
            ModelClient(
                u,
                profile=profile,
                model=s.model_name,
                api_key=s.api_key,
                timeout_s=s.timeout_s,
                max_retries=s.max_retries,
            )
            for u in urls
        ]
        client: ChatModel = clients[0] if len(clients) == 1 else ModelPool(clients)
        try:
            await client.connect()
        except BaseException:
            await client.close()  # its HTTP session, opened by the failed connect
            await self.close()
            raise
        self._client = client
        return client

    async def close(self) -> None:
        """Close the client and stop the embedded server, if any."""
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self.embedded is not None:
            await self.embedded.stop()
            self.embedded = None
