"""Images as evidence: opened safely (formats, a size cap against decompression bombs), cropped by a 0-1000 box
grown to a readable size, enlarged, and read by OCR (tesseract), once per run and image region."""

from __future__ import annotations

import asyncio
import io
import shutil
import warnings

from PIL import Image, UnidentifiedImageError

from judgegraph.errors import ToolFailure
from judgegraph.tools._scope import RunScope

MAX_PIXELS = 40_000_000
"""Larger images are refused as possible decompression bombs."""


MIN_SIDE = 28


UPSAMPLE_TO = 448
"""Small crops are enlarged (at most 4x) until their longer side reaches this."""


MAX_SIDE = 1536
"""Large crops are reduced to this longer side: more pixels help no vision model and cost seconds to encode."""


FORMATS = {"PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP"}


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
