"""Where the model runs: a configured URL, or the embedded CPU server when none is configured."""

from __future__ import annotations

from judgegraph.backends._client import ChatModel, ModelClient
from judgegraph.backends._embedded import EmbeddedServer
from judgegraph.backends._pool import ModelPool
from judgegraph.backends._profiles import backend_profiles
from judgegraph.errors import UsageError
from judgegraph.settings import Settings


class ModelEndpoint:
    """Owns the model connection for a judge's lifetime: opens the client, starts and stops the embedded server."""

    def __init__(self, settings: Settings, client: ChatModel | None = None) -> None:
        """`client`: a model to use instead of one the settings name (a teacher, a test double); it is
        connected and closed here like any other."""
        self.settings = settings
        self.embedded: EmbeddedServer | None = None
        self._given = client
        self._client: ChatModel | None = None

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
            self.embedded = EmbeddedServer(n_threads=s.embedded_threads, model_path=s.embedded_model)
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
