"""The HTTP transport to an OpenAI-compatible endpoint: aiohttp, JSON in and out, nothing more.

The hot path of a judgment is two or more chat completions. The `openai` SDK spends about 1 ms of CPU on
each (request transformation, the httpx stack, response models) where this spends about 0.2 ms
(BENCHMARKS.md, overhead section); the wire format is the same OpenAI chat-completions API.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import orjson

from judgegraph.errors import EndpointError, MalformedResponse

_TRANSIENT_STATUS = {408, 409, 429}
_KIND_BY_STATUS = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}


class HttpTransport:
    """One aiohttp session per event loop (a session cannot move between loops), opened on first use."""

    def __init__(self, base_url: str, *, api_key: str, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)  # in-flight limits live upstream
            self._session = aiohttp.ClientSession(headers=self._headers, timeout=self._timeout, connector=connector)
            self._loop = loop
        return self._session

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON object the endpoint answered with; raises `EndpointError` for everything else."""
        data = None if body is None else _dumps(body)
        try:
            async with self._client().request(method, self.base_url + path, data=data) as response:
                raw = await response.read()
                status = response.status
        except TimeoutError:
            raise EndpointError("APITimeoutError", "Request timed out.", transient=True) from None
        except aiohttp.ClientError as e:
            raise EndpointError("APIConnectionError", f"Connection error: {e}", transient=True) from None
        if status != 200:
            raise EndpointError(
                _KIND_BY_STATUS.get(status, "InternalServerError" if status >= 500 else "APIStatusError"),
                _error_message(raw),
                status=status,
                transient=status >= 500 or status in _TRANSIENT_STATUS,
            )
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise MalformedResponse(f"the body is not JSON ({e}): {raw[:200]!r}") from None
        if not isinstance(parsed, dict):
            raise MalformedResponse(f"the body is not a JSON object: {raw[:200]!r}")
        return parsed

    async def close(self) -> None:
        if self._session is not None and not self._session.closed and self._loop is asyncio.get_running_loop():
            await self._session.close()
        self._session = None


def _dumps(body: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(body)  # several times faster than json; same JSON
    except TypeError:  # what orjson refuses (a non-str key, a huge int): the standard library's way
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def _error_message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else error or body.get("detail")
        return str(message) if message else raw[:300].decode(errors="replace")
    except ValueError:
        return raw[:300].decode(errors="replace") or "(empty body)"
