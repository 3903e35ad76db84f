"""Where the model runs: a configured URL, or the embedded CPU server when none is configured. Nothing is
connected or started until a run asks the model something: a batch decided by rules never starts a model."""

from __future__ import annotations

import asyncio
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends._client import ChatModel, ChatOptions
from judgegraph.backends._profiles import BackendProfile, backend_profiles
from judgegraph.backends._registry import OpenedModel, open_model
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
            named = self._endpoint.settings.backend or ""  # a profile's name, or a backend's (`embedded`)
            return backend_profiles.get(named if named in backend_profiles else "generic")
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
        self._opened: OpenedModel | None = None
        self._given = client
        self._client: ChatModel | None = None
        self.lazy = LazyModel(self)
        """What runs are given: the model, connected when a run first needs it."""

    @property
    def served_url(self) -> str | None:
        """The URL of the server the backend started for the model (the embedded one), while it runs; None
        where the model is someone else's server or nothing was started."""
        return self._opened.url if self._opened is not None else None

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
        """Connect through the settings' model backend (`backend`, else an OpenAI-compatible server at
        `model_url`, else the embedded server); idempotent."""
        if self._client is not None:
            return self._client
        if self._given is not None:
            await self._given.connect()
            self._client = self._given
            return self._given
        opened = self._opened = await open_model(self.settings)
        try:
            await opened.client.connect()
        except BaseException:
            await opened.client.close()  # whatever a backend's model opened before its connect failed
            await self.close()
            raise
        self._client = opened.client
        return opened.client

    async def close(self) -> None:
        """Close the client and stop what its backend started (the embedded server), if anything."""
        if self._client is not None:
            await self._client.close()
            self._client = None
        opened, self._opened = self._opened, None
        if opened is not None and opened.server is not None:
            await opened.server.stop()
