"""What every judge graph's nodes share: the spec's sampling, running tool calls with recording, attaching a
request's images to a message, and one ruling from the candidate orders judged."""

from __future__ import annotations

import asyncio
import base64

from judgegraph.agents import JudgeSpec
from judgegraph.backends import Sampling
from judgegraph.graphs._context import AnyContext
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import ToolContext, ToolFailure, call_tool, request_image_names


def sampling_of(spec: JudgeSpec) -> Sampling:
    """The spec's sampling, as the model client takes it."""
    s = spec.sampling
    return Sampling(temperature=s.temperature, max_tokens=s.max_tokens, seed=s.seed, logprobs=s.logprobs)


def tool_context(jc: AnyContext, request: JudgeRequest, node: str) -> ToolContext:
    """What a tool sees during a run: the request, shared services, the run's images, the model (recorded)."""
    return ToolContext(
        request=request,
        services=jc.services,
        scope=jc.scope,
        model=jc.client,
        on_model_turn=lambda turn: jc.recorder.model_turn(turn, node),
        recorded=jc.recorded,
    )


async def run_recorded(
    jc: AnyContext, request: JudgeRequest, calls: list[ToolCall], node: str, allowed: frozenset[str] | None = None
) -> list[ToolResult]:
    """Run tool calls in parallel, each call and each result recorded (calls first, in order)."""
    for call in calls:
        jc.recorder.tool_call(call, node)
    tctx = tool_context(jc, request, node)
    if len(calls) == 1:  # one call needs no task of its own
        results = [await call_tool(calls[0], tctx, allowed=allowed)]
    else:
        results = await asyncio.gather(*(call_tool(c, tctx, allowed=allowed) for c in calls))
    for result in results:
        jc.recorder.tool_result(result, node)
    return list(results)


def with_images(ctx: AnyContext, request: JudgeRequest, text: str) -> str | list[dict[str, object]]:
    """The user message with the request's images attached, where the backend takes images; else the text alone
    (text-only models read images through `zoom_image`'s OCR instead)."""
    if not request.images or ctx.client is None or not ctx.client.profile.images:
        return text
    parts: list[dict[str, object]] = [{"type": "text", "text": text}]
    for name in request_image_names(request):
        try:
            data = ctx.scope.image(name).data
        except ToolFailure as e:
            parts.append({"type": "text", "text": f"({name} could not be attached: {e})"})
            continue
        url = f"data:{media_type(data)};base64,{base64.b64encode(data).decode()}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def media_type(data: bytes) -> str:
    for magic, kind in (
        (b"\x89PNG", "image/png"),
        (b"\xff\xd8", "image/jpeg"),
        (b"GIF8", "image/gif"),
        (b"BM", "image/bmp"),
    ):
        if data.startswith(magic):
            return kind
    return "image/webp" if data[8:12] == b"WEBP" else "application/octet-stream"


def combine_orders(rulings: dict[str, ModelRuling], orders: list[str]) -> tuple[ModelRuling | None, bool | None]:
    """One ruling from the orders judged, and whether they agreed (None when only one order was judged).

    Orders that disagree make a tie, never a silent pick of either.
    """
    got = [rulings[o] for o in orders if o in rulings]
    if not got:
        return None, None
    if len(got) == 1:
        return got[0], None
    first, second = got
    if first.winner == second.winner:
        confidence = None
        if first.confidence is not None and second.confidence is not None:
            confidence = (first.confidence + second.confidence) / 2
        return first.model_copy(update={"confidence": confidence}), True
    rationale = f"the two candidate orders disagree ({first.rationale} | {second.rationale})"
    return ModelRuling(winner=None, confidence=0.0, rationale=rationale[:400]), False
