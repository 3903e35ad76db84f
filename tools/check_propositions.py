"""`check_propositions`: split a candidate into atomic claims and check each against the evidence alone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ModelTurn, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools._scope import request_image_names
from judgegraph.tools.claims.propositions import (
    CHECK_SCHEMA,
    CLAIMS_SCHEMA,
    Claim,
    ClaimCheckInput,
    ClaimVerdict,
    ModelClaimCheck,
    ModelJudge,
    PropositionsResult,
    check_claim,
    model_check_messages,
    parse_model_claims,
    split_claims,
)
from judgegraph.tools.claims.retrieval import Passage, passages_of
from judgegraph.tools.images.regions import read_text

if TYPE_CHECKING:
    from judgegraph.backends import ChatModel

ALL_PASSAGES_UP_TO = 60
"""Small collections: every passage is evidence for every claim (no retrieval miss); larger: top-k retrieval."""
TOP_K = 5


class CheckPropositionsArgs(BaseModel):
    """Arguments of `check_propositions`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose claims to check.")
    proposer: Literal["rules", "model"] = Field(
        default="rules", description="Split claims by rules (sentences), or ask the model for atomic claims."
    )
    use_model: bool = Field(default=False, description="Ask the model about claims no deterministic check decides.")


def plan_check_propositions(request: JudgeRequest) -> list[ToolCall]:
    """With documents or images, check every candidate's claims against them."""
    if not request.documents and not request.images:
        return []
    why = "the request has documents" if request.documents else "the request has images (their text is evidence)"
    return each_candidate("check_propositions", request, why)


@reads(PropositionsResult)
def check_propositions_criterion(result: ToolResult, data: PropositionsResult) -> CriterionResult | None:
    """Faithful means: at least one claim supported and none contradicted."""
    passed = data.contradicted == 0 and data.supported > 0
    score = data.supported / max(1, len(data.claims)) if data.contradicted == 0 else 0.0
    return candidate_criterion(
        result, "faithful_to_evidence", data.candidate, passed, score, result.text.splitlines()[0]
    )


async def gather_evidence(ctx: ToolContext, claim: Claim) -> list[Passage]:
    """The evidence a claim is checked against: document passages (all of a small collection; of a large one,
    those the claim's words find and those the judge retrieved) and the text read in the request's images."""
    passages: list[Passage] = []
    request = ctx.request
    if request.documents:
        everything = [p for d in request.documents for p in await asyncio.to_thread(passages_of, d)]
        if len(everything) <= ALL_PASSAGES_UP_TO or ctx.services is None:
            passages.extend(everything)
        else:
            hits = await asyncio.to_thread(ctx.services.retriever().query, request.documents, claim.text, TOP_K)
            passages.extend(h.passage for h in hits)
            if ctx.scope is not None:  # and the pages the judge chose to read: what a claim's words do not find
                found = {(p.document, p.page) for p in passages}
                passages.extend(p for p in ctx.scope.retrieved if (p.document, p.page) not in found)
    if ctx.scope is not None:
        for name in request_image_names(request):
            text = await read_text(ctx.scope, name)
            if text:
                passages.append(Passage(document=f"image:{name}", page=0, text=text))
        # And the regions the judge zoomed into and read: small print the whole image's OCR cannot read.
        whole = {p.text for p in passages}
        for name, box, text in list(ctx.scope.read):
            if text and text not in whole:
                whole.add(text)
                passages.append(Passage(document=f"image:{name} {box}", page=0, text=text))
    return passages


async def model_claims(ctx: ToolContext, text: str) -> list[Claim] | None:
    """The model as proposer: atomic claims from `text`, or None when it gives nothing usable."""
    if ctx.model is None:
        return None
    messages = [
        {"role": "system", "content": "Split the text into short, atomic, self-contained factual claims. JSON only."},
        {"role": "user", "content": f'Text:\n{text}\n\nReply {{"claims": ["...", "..."]}}'},
    ]
    turn = await ctx.model.chat(messages, json_schema=CLAIMS_SCHEMA, schema_name="claims")
    if ctx.on_model_turn is not None:
        ctx.on_model_turn(turn)
    return parse_model_claims(turn.text) if turn.error is None else None


def model_judge(model: ChatModel | None, on_model_turn: Callable[[ModelTurn], object] | None) -> ModelJudge | None:
    """The model as checker of claims no deterministic check decides. It is given one claim and its evidence
    (`ClaimCheckInput`), nothing else."""
    if model is None:
        return None

    async def judge(inp: ClaimCheckInput) -> ClaimVerdict | None:
        turn = await model.chat(model_check_messages(inp), json_schema=CHECK_SCHEMA, schema_name="claim_check")
        if on_model_turn is not None:
            on_model_turn(turn)
        try:
            said = ModelClaimCheck.model_validate_json(turn.text or "")
        except ValueError:
            return None
        return ClaimVerdict(claim=inp.claim, verdict=said.verdict, method="model", span=said.span)

    return judge


@tool("check_propositions", timeout_s=180.0, plan=plan_check_propositions, criterion=check_propositions_criterion)
async def check_propositions(args: CheckPropositionsArgs, ctx: ToolContext) -> ToolOutput:
    """Split one candidate into atomic claims and check each against the documents and image text only.

    Each claim is supported, contradicted or not found, with the evidence span it rests on.
    """
    request = ctx.request
    if not request.documents and not request.images:
        raise ToolFailure("this request has no documents or images to check claims against")
    text = ctx.candidate(args.candidate)
    claims = (await model_claims(ctx, text)) if args.proposer == "model" else None
    proposer: Literal["rules", "model"] = "model" if claims else "rules"
    claims = claims or split_claims(text)
    judge = model_judge(ctx.model, ctx.on_model_turn) if args.use_model else None
    verdicts = []
    for claim in claims:
        # The checker gets the claim and the evidence: the response it came from is not in its input type.
        inp = ClaimCheckInput(claim=claim, evidence=await gather_evidence(ctx, claim))
        verdicts.append(await check_claim(inp, judge))
    result = PropositionsResult(
        candidate=args.candidate,
        proposer=proposer,
        claims=verdicts,
        supported=sum(v.verdict == "supported" for v in verdicts),
        contradicted=sum(v.verdict == "contradicted" for v in verdicts),
        not_found=sum(v.verdict == "not_found" for v in verdicts),
    )
    lines = [
        f"candidate {args.candidate}: {result.supported} supported, {result.contradicted} contradicted, "
        f"{result.not_found} not found of {len(verdicts)} claims"
    ]
    for v in verdicts:
        if v.verdict != "not_found":
            lines.append(f"  {v.verdict} ({v.method}): {v.claim.text!r} <- {v.span[:200]!r}")
    return ToolOutput(text="\n".join(lines[:15]), data=result)
