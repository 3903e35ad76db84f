"""Retrieval with the real all-MiniLM-L6-v2 embedder over a few hundred generated pages."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from judgegraph.schema import Document, JudgeRequest, ToolCall
from judgegraph.tools import MiniLMEmbedder, Retriever, ToolContext, ToolServices, call_tool, passages_of
from judgegraph.tools.claims import retrieval as _retrieval

CITIES = [
    f"{a}{b}"
    for a in ("Bal", "Cor", "Dun", "Esk", "Fal", "Gor", "Har", "Ilm", "Jor", "Kes")
    for b in ("ton", "mere", "wick", "ford", "haven", "stead", "bury", "moor", "gate", "dale")
]
EXPORTS = [
    "copper",
    "wool",
    "glassware",
    "timber",
    "salt",
    "tea",
    "silk",
    "olive oil",
    "cheese",
    "paper",
    "clocks",
    "rope",
    "wine",
    "porcelain",
    "amber",
]
TOPICS = ["history", "economy", "climate"]


def _pages() -> list[str]:
    rng = random.Random(7)
    pages = []
    for city in CITIES:  # 100 cities x 3 topics = 300 pages
        export = rng.choice(EXPORTS)
        pages += [
            f"The history of {city}: founded by river traders, {city} grew around a stone bridge and an old abbey.",
            f"The economy of {city} depends on {export}. Most workshops in {city} make {export} for export.",
            f"The climate of {city} is mild, with wet winters; {city} receives about {rng.randint(400, 1200)} mm of rain.",
        ]
    return pages


class CountingEmbedder:
    def __init__(self) -> None:
        self.inner = MiniLMEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture(scope="module")
def atlas() -> Document:
    return Document(id="atlas", pages=_pages())


def test_known_queries_find_their_page_in_the_top_three(
    embedder: CountingEmbedder, atlas: Document, tmp_path: Path
) -> None:
    retriever = Retriever(embedder, cache_dir=tmp_path)
    rng = random.Random(1)
    cities = rng.sample(range(len(CITIES)), 20)
    hits_in_top3 = 0
    for i in cities:
        city = CITIES[i]
        hits = retriever.query([atlas], f"What does {city} make and export?", 3)
        hits_in_top3 += any(h.passage.page == 3 * i + 1 for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits_in_top3 >= 18, hits_in_top3


def test_documents_are_embedded_once(embedder: CountingEmbedder, atlas: Document, tmp_path: Path) -> None:
    first = Retriever(embedder, cache_dir=tmp_path)
    first.index([atlas])
    before = embedder.texts
    second = Retriever(embedder, cache_dir=tmp_path)  # a new process would find the same cache files
    second.index([atlas])
    assert embedder.texts == before
    assert len(list(tmp_path.glob("*.npy"))) == 1
    assert len(list(tmp_path.glob("*.flat.faiss"))) == 1  # the index is persisted too, and read back
    third = Retriever(embedder, cache_dir=tmp_path)
    assert third.index([atlas]).index.ntotal == 300 and embedder.texts == before


def test_large_collections_use_an_approximate_index(
    embedder: CountingEmbedder, atlas: Document, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_retrieval, "HNSW_THRESHOLD", 100)
    index = Retriever(embedder, cache_dir=tmp_path).index([atlas])
    assert not index.exact and type(index.index).__name__ == "IndexHNSWFlat"
    hits = Retriever(embedder, cache_dir=tmp_path).query([atlas], f"What does {CITIES[5]} export?", 3)
    assert any(h.passage.page == 3 * 5 + 1 for h in hits)


def _tiny_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    for text in pages:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        page_id, content_id = len(objects) + 1, len(objects) + 2
        kids.append(f"{page_id} 0 R")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {len(pages) * 2 + 3} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream.decode()}\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>"
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def test_pdf_pages_text_files_and_bad_documents(tmp_path: Path) -> None:
    from judgegraph.tools import ToolFailure

    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(_tiny_pdf(["Revenue grew by 12 percent.", "Costs fell by 3 percent."]))
    pages = passages_of(Document(id="report", path=str(pdf)))
    assert [p.text for p in pages] == ["Revenue grew by 12 percent.", "Costs fell by 3 percent."]
    txt = tmp_path / "notes.txt"
    txt.write_text("A first note. " * 200)
    assert len(passages_of(Document(id="notes", path=str(txt)))) > 1
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 garbage")
    for doc, message in [
        (Document(id="broken", path=str(broken)), "not a readable PDF"),
        (Document(id="gone", path=str(tmp_path / "gone.txt")), "cannot read"),
        (Document(id="empty", text="   "), "is empty"),
    ]:
        with pytest.raises(ToolFailure, match=message):
            passages_of(doc)


async def test_tool_by_query_and_by_index(embedder: CountingEmbedder, atlas: Document, tmp_path: Path) -> None:
    request = JudgeRequest(id="r", prompt="p", candidates=["a", "b"], documents=[atlas])
    ctx = ToolContext(request=request, services=ToolServices(embedder=embedder, embedding_cache=tmp_path))
    by_query = await call_tool(ToolCall(name="retrieve", arguments={"query": f"rain in {CITIES[0]}", "k": 2}), ctx)
    assert by_query.ok and by_query.data is not None and len(by_query.data["passages"]) == 2
    assert by_query.data["passages"][0]["page"] == 2 and by_query.data["exact"] is True
    by_index = await call_tool(ToolCall(name="retrieve", arguments={"document": "atlas", "page": 4}), ctx)
    assert by_index.ok and by_index.text.startswith("[atlas p.4]") and CITIES[1] in by_index.text
    for args, message in [
        ({"document": "atlas", "page": 999}, "has 300 pages"),
        ({"document": "nope", "page": 0}, "no document"),
        ({}, "either a query"),
    ]:
        r = await call_tool(ToolCall(name="retrieve", arguments=args), ctx)
        assert not r.ok and message in (r.error or ""), r.error


async def test_a_page_the_judge_read_is_evidence_for_the_claims(embedder: CountingEmbedder, tmp_path: Path) -> None:
    """In a collection larger than the checker reads whole, each claim is checked against the passages its own
    words find, and against the pages the judge retrieved. The fact below sits on a page that never names its
    place (the library eval set's guides): the claim confusing the museum with the library beside it is not
    contradicted until the museum's own page is read, then it is, by that page."""
    from judgegraph.evals._sets import LIBRARY_DOCUMENTS, _guide
    from judgegraph.tools import RunScope
    from judgegraph.tools.check_propositions import ALL_PASSAGES_UP_TO

    rng = random.Random(3)
    places = [f"{c} {kind}" for c in CITIES[:8] for kind in ("Museum", "Library")]
    assert len(places) == LIBRARY_DOCUMENTS
    lengths = rng.sample(range(120, 2400), len(places))
    docs = [
        Document(id=p.lower().replace(" ", "-"), pages=_guide(p, 1900 + k, n, 40 + k, rng))
        for k, (p, n) in enumerate(zip(places, lengths, strict=True))
    ]
    assert sum(len(d.pages or []) for d in docs) > ALL_PASSAGES_UP_TO
    museum, library = 0, 1  # f"{CITIES[0]} Museum", f"{CITIES[0]} Library"
    confused = f"The {places[museum]} is {lengths[library]} metres long."
    request = JudgeRequest(
        id="r", prompt=f"How long is the {places[museum]}?", candidates=[confused, "x"], documents=docs
    )
    services = ToolServices(embedder=embedder, embedding_cache=tmp_path)
    check = ToolCall(name="check_propositions", arguments={"candidate": 0})

    ctx = ToolContext(request=request, services=services, scope=RunScope(request))
    before = await call_tool(check, ctx)
    assert before.data is not None and before.data["contradicted"] == 0, before.text
    read = await call_tool(ToolCall(name="retrieve", arguments={"document": docs[museum].id, "page": 2}), ctx)
    assert read.ok and ctx.scope is not None and [p.page for p in ctx.scope.retrieved] == [2]
    after = await call_tool(check, ctx)
    assert after.data is not None and after.data["contradicted"] == 1, after.text
    assert after.data["claims"][0]["source"] == f"{docs[museum].id} p.2"
