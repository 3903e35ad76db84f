"""Evidence tools: retrieval over 10k pages (embedding throughput, index build time and memory, query latency
without embedding) and zoom_image on a 4000x3000 photo."""

from __future__ import annotations

import asyncio
import functools
import io
import random
import time
from collections.abc import Callable

import faiss
import skimage.data
from PIL import Image

from benchmarks._util import Stats, table
from judgegraph.tools import MiniLMEmbedder, Passage, PassageIndex
from judgegraph.tools.claims import retrieval as _retrieval
from judgegraph.tools.images.regions import open_image, zoom

PAGES = 10_000


def _pages(n: int) -> list[Passage]:
    rng = random.Random(0)
    words = "river bridge abbey market copper wool salt harbour mill tower winter rain trade guild road".split()
    return [
        Passage(document="corpus", page=i, text=f"Page {i}: " + " ".join(rng.choice(words) for _ in range(60)))
        for i in range(n)
    ]


def _retrieval_bench() -> tuple[str, float, float]:
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    passages = _pages(PAGES)
    t = time.perf_counter()
    vectors = embedder.embed([p.text for p in passages])
    embed_s = time.perf_counter() - t
    queries = embedder.embed([f"who trades copper and wool near the harbour {i}" for i in range(200)])
    rows = []
    for label, threshold in (("exact (IndexFlatIP)", PAGES + 1), ("approximate (IndexHNSWFlat, M=32)", 0)):
        _retrieval.HNSW_THRESHOLD = threshold
        t = time.perf_counter()
        index = PassageIndex(passages, vectors)
        build_s = time.perf_counter() - t
        index_mb = faiss.serialize_index(index.index).nbytes / 2**20
        times = []
        for q in queries:
            t = time.perf_counter()
            index.search(q, 5)
            times.append(time.perf_counter() - t)
        s = Stats.of(times)
        rows.append([label, f"{build_s * 1000:.0f}", f"{index_mb:.1f}", s.p50_ms, s.p95_ms])
    _retrieval.HNSW_THRESHOLD = 5000
    text = table(["index over 10k pages", "build ms", "index MB", "query p50 ms", "query p95 ms"], rows)
    return text, PAGES / embed_s, embed_s


def _zoom_bench() -> str:
    photo = Image.fromarray(skimage.data.astronaut()).resize((4000, 3000), Image.Resampling.BICUBIC)
    buf = io.BytesIO()
    photo.save(buf, format="PNG")
    data = buf.getvalue()
    rows = []

    def timed(fn: Callable[[], object], n: int) -> Stats:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return Stats.of(times)

    s = timed(lambda: open_image(data, "photo"), 10)
    rows.append(["decode the 4000x3000 PNG (once per image per run)", s.p50_ms, s.p95_ms])
    img = open_image(data, "photo")
    for label, bbox, ocr, n in (
        ("zoom: whole image (reduced to 1536 px)", [0, 0, 1000, 1000], False, 10),
        ("zoom: small region (400x300 px, upsampled)", [450, 450, 550, 550], False, 30),
        ("zoom: small region + OCR", [450, 450, 550, 550], True, 5),
    ):
        s = timed(functools.partial(zoom, img, bbox, ocr), n)
        rows.append([label, s.p50_ms, s.p95_ms])
    return table(["zoom_image on a 4000x3000 photo", "p50 ms", "p95 ms"], rows)


async def bench() -> str:
    retrieval, throughput, embed_s = await asyncio.to_thread(_retrieval_bench)
    zoom = await asyncio.to_thread(_zoom_bench)
    target = "target <= 5 ms"
    return "\n\n".join(
        [
            f"Embedding {PAGES} pages of ~60 words with all-MiniLM-L6-v2 on the CPU: {embed_s:.1f} s "
            f"({throughput:.0f} pages/s). Queries are 200 pre-embedded questions, top 5"
            f" ({target}, embedding excluded):",
            retrieval,
            zoom,
        ]
    )


if __name__ == "__main__":
    print(asyncio.run(bench()))
