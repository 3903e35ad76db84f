"""`zoom_image`: crop a region of a named image, upsample it, return it as a new observation (+ optional OCR).

ARM-Thinker's convention: `bbox_2d` is `[x1, y1, x2, y2]` in 0-1000 coordinates relative to the image, so
the model need not know pixel sizes; crops smaller than `MIN_SIDE` pixels are grown around their centre.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import warnings
from typing import Any

from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, Field, field_validator

from judgegraph.errors import ToolFailure
from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.tools._base import ImageBlob, ToolContext, ToolOutput, tool
from judgegraph.tools._scope import RunScope, request_image_names

MAX_PIXELS = 40_000_000
"""Larger images are refused as possible decompression bombs."""
MIN_SIDE = 28
UPSAMPLE_TO = 448
"""Small crops are enlarged (at most 4x) until their longer side reaches this."""
MAX_SIDE = 1536
"""Large crops are reduced to this longer side: more pixels help no vision model and cost seconds to encode."""
FORMATS = {"PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP"}
BOX_GRID = 50
"""A constrained model states box coordinates on this grid (0, 50, ..., 1000)."""


class ZoomImageArgs(BaseModel):
    """Arguments of `zoom_image`."""

    image: str = Field(default="original_image", description="Which image: original_image, image_k or observation_k.")
    bbox_2d: list[int] = Field(
        default=[0, 0, 1000, 1000],
        description="Region [x1, y1, x2, y2] in 0-1000 coordinates relative to the image's width and height.",
    )
    ocr: bool = Field(default=False, description="Also read the text in the region (OCR).")

    @field_validator("bbox_2d")
    @classmethod
    def _box(cls, v: list[int]) -> list[int]:
        if len(v) != 4 or any(not 0 <= c <= 1000 for c in v):
            raise ValueError("bbox_2d must be four numbers from 0 to 1000")
        # Corners in either order name the same region; a box of no width or height is a point to zoom
        # around (crop_box grows it to MIN_SIDE).
        x1, y1, x2, y2 = v
        return [min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)]


class ZoomResult(BaseModel):
    observation: str
    source: str
    bbox_2d: list[int]
    crop_px: list[int]
    """The crop in the source's pixels: [left, top, right, bottom]."""
    size: list[int]
    """The observation's width and height after upsampling."""
    ocr_text: str | None = None


def open_image(data: bytes, name: str) -> Image.Image:
    """Decode an image safely: unknown formats, corrupt or truncated files and decompression bombs are refused."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            if img.format not in FORMATS:
                raise ToolFailure(f"image {name!r} is {img.format}, not one of {sorted(FORMATS)}")
            if img.width * img.height > MAX_PIXELS:
                raise ToolFailure(f"image {name!r} is {img.width}x{img.height}: over {MAX_PIXELS} pixels (a bomb?)")
            img.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ToolFailure(f"image {name!r} is a decompression bomb") from None
    except UnidentifiedImageError:
        raise ToolFailure(f"image {name!r} is not an image in a known format (corrupt?)") from None
    except OSError as e:
        raise ToolFailure(f"image {name!r} cannot be decoded: {e}") from None
    return img.convert("RGB") if img.mode not in ("RGB", "L") else img


def crop_box(width: int, height: int, bbox: list[int]) -> tuple[int, int, int, int]:
    """The 0-1000 box in pixels, grown around its centre to at least MIN_SIDE (within the image)."""
    x1, y1, x2, y2 = (round(c * s / 1000) for c, s in zip(bbox, (width, height, width, height), strict=True))
    for lo, hi, limit in ((0, 2, width), (1, 3, height)):
        box = [x1, y1, x2, y2]
        side = box[hi] - box[lo]
        want = min(MIN_SIDE, limit)
        if side < want:
            centre = (box[lo] + box[hi]) / 2
            start = int(max(0, min(limit - want, round(centre - want / 2))))
            box[lo], box[hi] = start, start + want
            x1, y1, x2, y2 = box
    return x1, y1, x2, y2


def ocr(img: Image.Image) -> str:
    """Text in the image (Tesseract), one line per row of words as they sit in the image."""
    if shutil.which("tesseract") is None:
        raise ToolFailure("OCR needs Tesseract: apt-get install tesseract-ocr")
    import pytesseract

    # Sparse-text mode: signs, labels and photos rarely hold one tidy block of text. It finds words in no
    # particular order, so rows are rebuilt from the words' boxes: a receipt's "Total 9.00" stays one line,
    # which is what the claim checker compares a stated total with.
    data = pytesseract.image_to_data(img.convert("L"), config="--psm 11", output_type=pytesseract.Output.DICT)
    words = sorted(
        (data["top"][i], data["top"][i] + data["height"][i], data["left"][i], str(data["text"][i]).strip())
        for i in range(len(data["text"]))
        if str(data["text"][i]).strip()
    )
    rows: list[tuple[int, int, list[tuple[int, str]]]] = []
    for top, bottom, left, text in words:
        middle = (top + bottom) / 2
        row = next((r for r in rows if r[0] <= middle <= r[1]), None)
        if row is None:
            rows.append((top, bottom, [(left, text)]))
        else:
            row[2].append((left, text))
    return "\n".join(" ".join(t for _, t in sorted(r[2])) for r in rows)


def zoom(img: Image.Image, bbox: list[int], want_ocr: bool) -> tuple[bytes, list[int], list[int], str | None]:
    """Crop `bbox` (0-1000) out of a decoded image, resize it, encode it as PNG; optionally OCR the crop."""
    box = crop_box(img.width, img.height, bbox)
    crop = img.crop(box)
    scale = min(4.0, UPSAMPLE_TO / max(crop.size))
    if scale > 1:
        crop = crop.resize((round(crop.width * scale), round(crop.height * scale)), Image.Resampling.LANCZOS)
    elif max(crop.size) > MAX_SIDE:
        crop.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS, reducing_gap=2.0)
    buf = io.BytesIO()
    crop.save(buf, format="PNG", compress_level=1)  # fast: the bytes are stored once and rarely re-read
    return buf.getvalue(), list(box), list(crop.size), ocr(crop) if want_ocr else None


async def decoded(scope: RunScope, name: str) -> Image.Image:
    """A named image decoded once per run (decoding a large PNG costs far more than cropping it)."""
    image = scope.image(name)
    img: Image.Image = await scope.cached(
        f"decoded:{image.sha256}", lambda: asyncio.to_thread(open_image, image.data, name)
    )
    return img


async def read_text(scope: RunScope, name: str, bbox: list[int] | None = None) -> str:
    """OCR of a named image (or a region of it), computed once per run."""
    image = scope.image(name)
    box = bbox or [0, 0, 1000, 1000]

    async def compute() -> str:
        img = await decoded(scope, name)
        _, _, _, text = await asyncio.to_thread(zoom, img, box, True)
        if scope.from_request(name):
            scope.read.append((name, box, text or ""))
        return text or ""

    text: str = await scope.cached(f"ocr:{image.sha256}:{box}", compute)
    return text


def plan_zoom_image(request: JudgeRequest) -> list[ToolCall]:
    """With images, read each whole request image (OCR), so a text-only model and the claim checker see it."""
    return [
        ToolCall(
            name="zoom_image", arguments={"image": n, "ocr": True}, reason="the request has an image: read its text"
        )
        for n in request_image_names(request)
    ]


QUARTERS = ([0, 0, 500, 500], [500, 0, 1000, 500], [0, 500, 500, 1000], [500, 500, 1000, 1000])


def explore_zoom_image(request: JudgeRequest) -> list[ToolCall]:
    """Each quarter of each request image, read: where a detail too small for the whole image's OCR may be."""
    return [
        ToolCall(name="zoom_image", arguments={"image": n, "bbox_2d": box, "ocr": True}, reason="look closer here")
        for n in request_image_names(request)
        for box in QUARTERS
    ]


def narrow_zoom_image(schema: dict[str, Any], request: JudgeRequest, scope: RunScope | None) -> dict[str, Any]:
    """The images this run has (the request's and the crops so far, never a candidate's own), and a box of four
    coordinates: the model states which image, which region, and whether to read it."""
    names = [n for n in scope.names() if not n.startswith("candidate_")] if scope is not None else []
    names = names or request_image_names(request)
    props = schema["properties"]
    props["image"] = {**props["image"], "enum": names}
    box = props["bbox_2d"]
    # A grid of 50 (an enum, which every grammar converter enforces; llama.cpp's Python one ignores minimum
    # and maximum): each coordinate is one the tool accepts.
    box["items"] = {"type": "integer", "enum": list(range(0, 1001, BOX_GRID))}
    box["minItems"] = box["maxItems"] = 4
    schema["required"] = ["image", "bbox_2d", "ocr"]
    return schema


@tool("zoom_image", timeout_s=60.0, plan=plan_zoom_image, narrow=narrow_zoom_image, explore=explore_zoom_image)
async def zoom_image(args: ZoomImageArgs, ctx: ToolContext) -> ToolOutput:
    """Crop a region of an image and return it enlarged as a new observation; optionally read its text (OCR).

    Use it to look closely at small details: give the region as bbox_2d [x1, y1, x2, y2] in 0-1000
    coordinates relative to the image.
    """
    if ctx.scope is None:
        raise ToolFailure("no images are available to this judge")
    img = await decoded(ctx.scope, args.image)
    png, box, size, _ = await asyncio.to_thread(zoom, img, args.bbox_2d, False)
    text = await read_text(ctx.scope, args.image, args.bbox_2d) if args.ocr else None
    observation = ctx.scope.add_observation(png, f"{args.image} {args.bbox_2d}")
    result = ZoomResult(
        observation=observation.name, source=args.image, bbox_2d=args.bbox_2d, crop_px=box, size=size, ocr_text=text
    )
    width, height = box[2] - box[0], box[3] - box[1]
    summary = (
        f"{observation.name}: {args.image} region {args.bbox_2d} ({width}x{height} px) shown at {size[0]}x{size[1]}"
    )
    if text is not None:
        summary += f"\ntext read in it: {text!r}" if text else "\nno text could be read in it"
    return ToolOutput(text=summary, data=result, images=[ImageBlob(data=png)])
