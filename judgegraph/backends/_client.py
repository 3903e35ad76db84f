"""One async OpenAI-compatible client for every backend; each call becomes a recorded `ModelTurn`."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from typing import Any, Protocol, TypedDict

from pydantic import BaseModel, ConfigDict
from typing_extensions import Unpack

from judgegraph.backends._http import HttpTransport
from judgegraph.backends._profiles import BackendProfile, detect_profile
from judgegraph.errors import BackendUnavailableError, EndpointError, MalformedResponse, UsageError
from judgegraph.schema._trajectory import ModelRequest, ModelTurn, ToolCall, Usage

log = logging.getLogger(__name__)


class Sampling(BaseModel):
    """Sampling parameters for one call."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    temperature: float = 0.0
    max_tokens: int = 512
    seed: int | None = 0
    top_p: float | None = None
    logprobs: bool = False
    """Ask for per-token logprobs (recorded in the turn)."""


class ChatOptions(TypedDict, total=False):
    """What one chat call may ask besides its messages; every `ChatModel` takes the same."""

    tools: list[dict[str, Any]] | None
    """Function specs offered to the model (native tool calls)."""
    tool_choice: str | dict[str, Any] | None
    json_schema: dict[str, Any] | None
    """Constrain the reply to this JSON schema (the backend's structured output)."""
    schema_name: str
    """The schema's name on the wire (default "verdict")."""
    sampling: Sampling | None


class ChatModel(Protocol):
    """What graphs and tools need from a model: one endpoint (`ModelClient`) or several (`ModelPool`)."""

    @property
    def profile(self) -> BackendProfile: ...

    @property
    def model(self) -> str: ...

    async def connect(self) -> None: ...

    async def close(self) -> None: ...

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn: ...


class ModelClient:
    """Talks to one OpenAI-compatible endpoint (the chat-completions API, over a lean aiohttp transport).

    Transient failures (connection, timeout, 429, 5xx) are retried with exponential backoff; a call that
    still fails returns a `ModelTurn` whose `error` is set, so the graph can end with `valid=false`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        profile: BackendProfile | None = None,
        model: str | None = None,
        api_key: str = "EMPTY",
        timeout_s: float = 120.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._profile = profile
        self._model = model
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._http = HttpTransport(self.base_url, api_key=api_key, timeout_s=timeout_s)

    @property
    def profile(self) -> BackendProfile:
        if self._profile is None:
            raise UsageError("call `await client.connect()` first")
        return self._profile

    @property
    def model(self) -> str:
        if self._model is None:
            raise UsageError("call `await client.connect()` first")
        return self._model

    async def connect(self) -> None:
        """Check the endpoint answers; pick the served model and the backend profile if not given. A connect that
        fails leaves no connection open (callers that catch the error do not close a client they never had)."""
        try:
            listing = await self._http.request("GET", "/models")
        except EndpointError as e:
            await self._http.close()
            raise BackendUnavailableError(
                f"model endpoint {self.base_url} does not answer ({e}). "
                "Start the server, fix --model, or leave --model unset to use the embedded CPU model."
            ) from e
        data = listing.get("data")
        if not isinstance(data, list) or not data or not isinstance(data[0], dict) or "id" not in data[0]:
            await self._http.close()
            raise BackendUnavailableError(f"model endpoint {self.base_url} serves no model")
        first = data[0]
        if self._model is None:
            self._model = str(first["id"])
        if self._profile is None:
            self._profile = detect_profile(first.get("owned_by"))
        log.info("model endpoint %s: model %s, profile %s", self.base_url, self._model, self.profile.name)

    def assume(self, model: str, profile: BackendProfile) -> None:
        """Serve as `model` with `profile` without asking the endpoint (a pool's member that is down now)."""
        self._model = self._model or model
        self._profile = self._profile or profile

    async def close(self) -> None:
        await self._http.close()

    def build_params(self, options: ChatOptions) -> dict[str, Any]:
        """Every request field except messages and tools, shaped for this backend's profile."""
        profile = self.profile
        sampling = options.get("sampling") or Sampling()
        tools, tool_choice = options.get("tools"), options.get("tool_choice")
        json_schema, schema_name = options.get("json_schema"), options.get("schema_name", "verdict")
        params: dict[str, Any] = {"model": self.model, "temperature": sampling.temperature}
        params["max_tokens"] = sampling.max_tokens
        if sampling.seed is not None:
            params["seed"] = sampling.seed
        if sampling.top_p is not None:
            params["top_p"] = sampling.top_p
        if sampling.logprobs and profile.logprobs:
            params["logprobs"] = True
        if json_schema is not None:
            params["response_format"] = profile.response_format(schema_name, json_schema)
        if tools:
            choice = profile.tool_choice(tool_choice)
            if choice is not None:
                params["tool_choice"] = choice
            if not profile.parallel_tool_calls:
                params["parallel_tool_calls"] = False
        if profile.token_ids_extra:
            params["extra_body"] = dict(profile.token_ids_extra)
        return params

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        """One chat completion, retried on transient errors; never raises for endpoint failures."""
        turn, _ = await self.attempt(messages, **options)
        return turn

    async def attempt(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> tuple[ModelTurn, bool]:
        """Like `chat`, and also says whether the endpoint itself failed (so a pool can fail over).

        True only when the transient errors outlasted the retries: a 4xx (a bad request) would fail on
        every endpoint alike, so it is not the endpoint's fault.
        """
        params = self.build_params(options)
        tools = options.get("tools")
        request = ModelRequest(messages=messages, tools=tools or [], params=params)
        body: dict[str, Any] = {"messages": messages}
        body.update((k, v) for k, v in params.items() if k != "extra_body")
        body.update(params.get("extra_body") or {})  # backend-specific fields sit at the top level on the wire
        if tools:
            body["tools"] = tools
        start = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                turn = _turn_from_response(await self._http.request("POST", "/chat/completions", body), request)
            except EndpointError as e:
                if e.transient and attempt <= self.max_retries:
                    if not isinstance(e, MalformedResponse):  # a garbled body is worth an immediate retry
                        delay = self.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())
                        log.warning("model call failed (%s), retry %d in %.2fs", e.kind, attempt, delay)
                        await asyncio.sleep(delay)
                    continue
                return self._failed(request, e, attempt, start), e.transient
            break
        turn.latency_s = time.perf_counter() - start
        turn.attempts = attempt
        turn.backend = self.profile.name
        turn.endpoint = self.base_url
        return turn, False

    def _failed(self, request: ModelRequest, e: EndpointError, attempts: int, start: float) -> ModelTurn:
        return ModelTurn(
            request=request,
            error=str(e),
            attempts=attempts,
            latency_s=time.perf_counter() - start,
            backend=self.profile.name,
            model=self.model,
            endpoint=self.base_url,
        )


def _turn_from_response(data: dict[str, Any], request: ModelRequest) -> ModelTurn:
    """Everything the endpoint returned, kept: text, tool calls (raw and parsed), token ids, logprobs."""
    choices = data.get("choices")
    if not choices:
        return ModelTurn(request=request, error="response has no choices", model=str(data.get("model") or ""))
    choice = choices[0] if isinstance(choices, list) else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise MalformedResponse(f"the first choice is not a chat message: {str(choices)[:200]}")
    raw_calls: list[dict[str, Any]] = [tc for tc in message.get("tool_calls") or [] if isinstance(tc, dict)]
    content = message.get("content")
    if not raw_calls and request.tools and isinstance(content, str):
        raw_calls = calls_in_text(content, {str(t.get("function", {}).get("name")) for t in request.tools})
    calls: list[ToolCall] = []
    for tc in raw_calls:
        fn = tc.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except (json.JSONDecodeError, TypeError):
            continue  # kept in raw_tool_calls; the graph reports it to the model
        if isinstance(args, dict):
            ids = {"id": tc["id"]} if tc.get("id") else {}
            calls.append(ToolCall(**ids, name=str(fn.get("name") or ""), arguments=args, source="model"))
    logprobs = choice.get("logprobs")
    usage = data.get("usage") or {}
    return ModelTurn(
        request=request,
        text=content if isinstance(content, str) or content is None else json.dumps(content),
        tool_calls=calls,
        raw_tool_calls=raw_calls,
        finish_reason=choice.get("finish_reason"),
        prompt_token_ids=data.get("prompt_token_ids") or choice.get("prompt_token_ids"),
        completion_token_ids=choice.get("token_ids"),
        logprobs=logprobs.get("content") if isinstance(logprobs, dict) else None,
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        ),
        model=str(data.get("model") or ""),
    )


_FENCED = re.compile(r"```(?:json)?\s*(.*?)```|<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def calls_in_text(text: str, offered: set[str]) -> list[dict[str, Any]]:
    """Tool calls a model wrote into its reply's text instead of the API's `tool_calls` (Qwen2.5 under a
    chat template the server does not parse: fenced JSON `{"name", "arguments"}`), in the API's shape. Only
    objects naming an offered function count; anything else stays text."""
    pieces = [a or b for a, b in _FENCED.findall(text)] or [text]
    found: list[dict[str, Any]] = []
    for piece in pieces:
        try:
            value = json.loads(piece.strip())
        except json.JSONDecodeError:
            continue
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, dict) or item.get("name") not in offered:
                continue
            args = item.get("arguments", item.get("parameters", {}))
            arguments = args if isinstance(args, str) else json.dumps(args)
            function = {"name": item["name"], "arguments": arguments}
            found.append({"id": f"text_call_{len(found)}", "type": "function", "function": function})
    return found
