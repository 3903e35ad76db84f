"""Render the bundled example images (run from the repository root: `python examples/make_images.py`)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent / "images"


def sign() -> None:
    """A road sign whose small text only reads well when zoomed or OCR'd."""
    img = Image.new("RGB", (640, 420), (110, 140, 90))
    draw = ImageDraw.Draw(img)
    draw.rectangle((200, 90, 440, 390), fill="white", outline="black", width=6)
    font = ImageFont.load_default(size=44)
    for y, text in ((120, "SPEED"), (180, "LIMIT")):
        w = draw.textlength(text, font=font)
        draw.text((320 - w / 2, y), text, fill="black", font=font)
    big = ImageFont.load_default(size=110)
    w = draw.textlength("40", font=big)
    draw.text((320 - w / 2, 245), "40", fill="black", font=big)
    img.save(HERE / "speed_limit.png", optimize=True)


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    sign()
