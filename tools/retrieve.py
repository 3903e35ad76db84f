"""`retrieve`: find the passages of the request's documents that bear on a query, or fetch a page by index."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pydantic import BaseModel, Field, model_validator

from judgegraph.errors import ToolFailure
from judgegraph.schema import Document, JudgeRequest, ToolCall
from judgegraph.tools._base import ToolContext, ToolOutput, tool
from judgegraph.tools._scope import RunScope
from judgegraph.tools.claims.retrieval import Passage, passages_of


class RetrieveArgs(BaseModel):
    """Arguments of `retrieve`."""

    query: str | None = Field(default=None, description="What to look for; returns the best-matching passages.")
    document: str | None = Field(default=None, description="With page: the document id to fetch a page of.")
    page: int | None = Field(default=None, ge=0, description="With document: the page (0-based) to fetch.")
    k: int = Field(default=3, ge=1, le=10, description="How many passages to return for a query.")

    @model_validator(mode="after")
    def _one_way(self) -> RetrieveArgs:
        if (self.query is None) == (self.page is None):
            raise ValueError("give either a query, or a document and a page")
        return self


class RetrievedPassage(Passage):
    score: float | None = None


class RetrieveResult(BaseModel):
    passages: list[RetrievedPassage]
    exact: bool | None = None
    """Whether the index searched exhaustively (False: approximate HNSW over a large collection)."""


def plan_retrieve(request: JudgeRequest) -> list[ToolCall]:
    """With documents, fetch the passages that bear on the task."""
    if not request.documents:
        return []
    return [ToolCall(name="retrieve", arguments={"query": request.prompt, "k": 3}, reason="the request has documents")]


EXPLORE_PAGES = 8
"""At most this many pages proposed to explore per request (each is one exploring run)."""


def named_documents(request: JudgeRequest) -> list[Document]:
    """The documents the task names by their id (every word of `varn-bridge` in the prompt)."""
    words = set(re.findall(r"[a-z0-9]+", request.prompt.lower()))
    return [d for d in request.documents if (ids := re.findall(r"[a-z0-9]+", d.id.lower())) and set(ids) <= words]


def explore_retrieve(request: JudgeRequest) -> list[ToolCall]:
    """Each page of each document the task names: in a collection too large to read whole, a fact may sit on a
    page that never names its subject ("It opened in 1903"), which neither the task's words nor a claim's find."""
    pages = [(d.id, page) for d in named_documents(request) for page in range(d.page_count or 0)]
    return [
        ToolCall(
            name="retrieve", arguments={"document": doc, "page": page}, reason="read this page of the named document"
        )
        for doc, page in pages[:EXPLORE_PAGES]
    ]


QUERY_CHARS = 200
"""The longest query a constrained model may write (a search, not an essay)."""


def narrow_retrieve(schema: dict[str, Any], request: JudgeRequest, scope: RunScope | None) -> dict[str, Any]:
    """Two ways to call it, each with what it needs: a query (and how many passages), or one of this request's
    documents and one of its pages."""
    props = schema["properties"]
    by_query = {
        "type": "object",
        "properties": {
            "query": {**_described(props["query"]), "type": "string", "minLength": 1, "maxLength": QUERY_CHARS},
            "k": props["k"],
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    by_page = [
        {
            "type": "object",
            "properties": {
                "document": {**_described(props["document"]), "const": d.id},
                "page": {**_described(props["page"]), "type": "integer", **_pages(d)},
            },
            "required": ["document", "page"],
            "additionalProperties": False,
        }
        for d in request.documents
    ]
    return {**_described(schema), "type": "object", "anyOf": [by_query, *by_page]}


def _pages(document: Document) -> dict[str, Any]:
    """The pages a document has, where that is known without reading a file."""
    count = document.page_count
    return {"minimum": 0} if count is None else {"enum": list(range(count))}


def _described(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k in ("title", "description")}


@tool("retrieve", timeout_s=120.0, plan=plan_retrieve, narrow=narrow_retrieve, explore=explore_retrieve)
async def retrieve(args: RetrieveArgs, ctx: ToolContext) -> ToolOutput:
    """Search the request's documents: by query (the best-matching passages, with scores) or by document and page."""
    docs = ctx.request.documents
    if not docs:
        raise ToolFailure("this request has no documents")
    if args.page is not None:
        by_id = {d.id: d for d in docs}
        doc = by_id.get(args.document or docs[0].id)
        if doc is None:
            raise ToolFailure(f"no document {args.document!r}; available: {', '.join(by_id)}")
        pages = await asyncio.to_thread(passages_of, doc)
        if args.page >= len(pages):
            raise ToolFailure(f"document {doc.id!r} has {len(pages)} pages (0..{len(pages) - 1})")
        p = pages[args.page]
        if ctx.scope is not None:
            ctx.scope.add_retrieved([p])
        result = RetrieveResult(passages=[RetrievedPassage(**p.model_dump())])
        return ToolOutput(text=f"[{p.document} p.{p.page}] {p.text}", data=result)
    if ctx.services is None:
        raise ToolFailure("no retrieval service is available to this judge")
    retriever = ctx.services.retriever()
    index = await asyncio.to_thread(retriever.index, docs)
    hits = await asyncio.to_thread(retriever.query, docs, args.query or "", args.k)
    if ctx.scope is not None:
        ctx.scope.add_retrieved([h.passage for h in hits])
    result = RetrieveResult(
        passages=[RetrievedPassage(**h.passage.model_dump(), score=h.score) for h in hits], exact=index.exact
    )
    text = "\n".join(f"[{h.passage.document} p.{h.passage.page} score {h.score:.2f}] {h.passage.text}" for h in hits)
    return ToolOutput(text=text or "no passage found", data=result)
