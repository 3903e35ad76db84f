"""`zoom_image`: crop a region of a named image, upsample it, return it as a new observation (+ optional OCR).

ARM-Thinker's convention: `bbox_2d` is `[x1, y1, x2, y2]` in 0-1000 coordinates relative to the image, so
the model need not know pixel sizes; crops smaller than `MIN_SIDE` pixels are grown around their centre.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field, field_validator

from judgegraph.errors import ToolFailure
from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.tools._base import ImageBlob, ToolContext, ToolOutput, tool
from judgegraph.tools._scope import RunScope, request_image_names
from judgegraph.tools.images.regions import (
    decoded,
    read_text,
    zoom,
)

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
