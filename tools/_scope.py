"""Per-run state tools share: the request's images under their names, observations made from them, OCR, and the
passages retrieved so far."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

from judgegraph.errors import ToolFailure
from judgegraph.schema import JudgeRequest
from judgegraph.tools.claims.retrieval import Passage

_T = TypeVar("_T")

MAX_IMAGE_BYTES = 50 * 1024 * 1024


@dataclass
class NamedImage:
    name: str
    data: bytes
    source: str
    """Where it came from: a path, `data:` URI, or the observation it was cropped from."""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def read_image_source(src: str) -> bytes:
    """Bytes of an image given as a file path or a `data:` URI (no URLs: judges run offline)."""
    if src.startswith("data:"):
        m = re.match(r"data:[\w/+.-]*(;[\w=-]+)*;base64,(.*)", src, re.DOTALL)
        if not m:
            raise ToolFailure("the image's data: URI is not base64")
        try:
            return base64.b64decode(m.group(2), validate=True)
        except ValueError:
            raise ToolFailure("the image's data: URI is not valid base64") from None
    if re.match(r"^[a-z]+://", src):
        raise ToolFailure(f"images are read from files or data: URIs, not URLs ({src[:60]})")
    if not src.strip():
        raise ToolFailure("the image source is empty")
    path = Path(src)
    try:
        if not path.is_file():
            raise ToolFailure(f"cannot read image {src!r}: not a file")
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ToolFailure(f"image {src!r} is {size} bytes, over the {MAX_IMAGE_BYTES} byte limit")
        return path.read_bytes()
    except OSError as e:
        raise ToolFailure(f"cannot read image {src!r}: {e.strerror}") from None


def request_image_names(request: JudgeRequest) -> list[str]:
    """The names a run gives the request's images: `original_image`, then `image_1`, `image_2`, ..."""
    return ["original_image" if i == 0 else f"image_{i}" for i in range(len(request.images))]


@dataclass
class RunScope:
    """One judge run's images. Request images are `original_image` (the first) and `image_1`, `image_2`, ...;
    a candidate's are `candidate_{i}_image_{j}`; each crop becomes `observation_{k}`."""

    request: JudgeRequest
    _sources: dict[str, str] = field(default_factory=dict)
    _loaded: dict[str, NamedImage] = field(default_factory=dict)
    _observations: int = 0
    _cache: dict[str, object] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    read: list[tuple[str, list[int], str]] = field(default_factory=list)
    """Text read so far in this run: (image, region, text), in the order it was read. A judge that zoomed into
    a region has made its text evidence, which the claim checker then checks against."""
    retrieved: list[Passage] = field(default_factory=list)
    """Document passages retrieved so far in this run, in order, each once: like a zoom's text, a page the judge
    chose to read is evidence for the claim checker (which otherwise finds passages by each claim's words)."""

    def __post_init__(self) -> None:
        for name, src in zip(request_image_names(self.request), self.request.images, strict=True):
            self._sources[name] = src
        for c, cand in enumerate(self.request.candidates):
            for j, src in enumerate(cand.images):
                self._sources[f"candidate_{c}_image_{j}"] = src

    def add_retrieved(self, passages: list[Passage]) -> None:
        seen = {(p.document, p.page) for p in self.retrieved}
        self.retrieved += [p for p in passages if (p.document, p.page) not in seen]

    def names(self) -> list[str]:
        return sorted({*self._sources, *self._loaded})

    def image(self, name: str) -> NamedImage:
        if name not in self._loaded:
            if name not in self._sources:
                known = ", ".join(self.names()) or "none"
                raise ToolFailure(f"no image named {name!r}; available: {known}")
            src = self._sources[name]
            self._loaded[name] = NamedImage(name=name, data=read_image_source(src), source=src)
        return self._loaded[name]

    def from_request(self, name: str) -> bool:
        """Whether `name` is a request image or a crop of one (not a candidate's image, which is no evidence
        about the candidate)."""
        while name.startswith("observation_") and name in self._loaded:
            name = self._loaded[name].source.split(" ", 1)[0]
        return not name.startswith("candidate_")

    def add_observation(self, data: bytes, source: str) -> NamedImage:
        self._observations += 1
        image = NamedImage(name=f"observation_{self._observations}", data=data, source=source)
        self._loaded[image.name] = image
        return image

    async def cached(self, key: str, compute: Callable[[], Awaitable[_T]]) -> _T:
        """`compute()` once per run for `key` (decoded images, OCR text); concurrent callers share the result."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key not in self._cache:
                self._cache[key] = await compute()
            return cast(_T, self._cache[key])  # one key, one kind of value (its prefix names it: `decoded:`, `ocr:`)
