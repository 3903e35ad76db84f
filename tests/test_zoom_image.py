from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
import skimage.data
from PIL import Image, ImageDraw, ImageFont

from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.store import TrajectoryStore
from judgegraph.tools import MemoryArtifacts, RunScope, ToolContext, ToolServices, call_tool
from judgegraph.tools.images.regions import MIN_SIDE, crop_box


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def astronaut(tmp_path: Path) -> Path:
    path = tmp_path / "astronaut.png"
    Image.fromarray(skimage.data.astronaut()).save(path)
    return path


@pytest.fixture
def small_text(tmp_path: Path) -> Path:
    """A large canvas with one small label: unreadable in the whole image, readable zoomed in."""
    img = Image.new("RGB", (2000, 1500), "white")
    draw = ImageDraw.Draw(img)
    draw.text((1500, 1200), "ROOM 42", fill="black", font=ImageFont.load_default(size=22))
    path = tmp_path / "label.png"
    img.save(path)
    return path


def _ctx(images: list[str], services: ToolServices | None = None) -> ToolContext:
    request = JudgeRequest(id="i", prompt="look", candidates=["a", "b"], images=images)
    return ToolContext(request=request, services=services or ToolServices(), scope=RunScope(request))


async def _zoom(ctx: ToolContext, **arguments: object):  # type: ignore[no-untyped-def]
    return await call_tool(ToolCall(name="zoom_image", arguments=arguments), ctx)


async def test_crop_of_a_real_photo_becomes_an_observation_stored_by_hash(astronaut: Path) -> None:
    services = ToolServices(artifacts=MemoryArtifacts())
    ctx = _ctx([str(astronaut)], services)
    r = await _zoom(ctx, image="original_image", bbox_2d=[250, 0, 750, 500])
    assert r.ok, r.error
    assert r.data is not None and r.data["observation"] == "observation_1" and r.data["crop_px"] == [128, 0, 384, 256]
    assert r.data["size"] == [448, 448]  # 256 px upsampled towards 448
    (digest,) = r.images
    stored = services.artifacts.get_artifact(digest)
    assert stored is not None and Image.open(io.BytesIO(stored[0])).size == (448, 448)
    again = await _zoom(ctx, image="observation_1", bbox_2d=[0, 0, 500, 500])  # zoom into the zoom
    assert again.ok and again.data is not None and again.data["observation"] == "observation_2"
    assert again.data["source"] == "observation_1"


def test_tiny_boxes_grow_to_the_minimum_side() -> None:
    x1, y1, x2, y2 = crop_box(4000, 3000, [500, 500, 501, 501])
    assert x2 - x1 == MIN_SIDE and y2 - y1 == MIN_SIDE and x1 <= 2000 <= x2
    x1, y1, x2, y2 = crop_box(4000, 3000, [999, 999, 1000, 1000])
    assert x2 == 4000 and y2 == 3000 and x2 - x1 == MIN_SIDE


async def test_ocr_reads_small_text_once_zoomed(small_text: Path) -> None:
    ctx = _ctx([str(small_text)])
    zoomed = await _zoom(ctx, bbox_2d=[700, 750, 900, 880], ocr=True)
    assert zoomed.ok and zoomed.data is not None
    assert "ROOM 42" in zoomed.data["ocr_text"] and "ROOM 42" in zoomed.text


async def test_data_uris_work_and_urls_do_not(astronaut: Path) -> None:
    uri = "data:image/png;base64," + base64.b64encode(astronaut.read_bytes()).decode()
    assert (await _zoom(_ctx([uri]))).ok
    r = await _zoom(_ctx(["https://example.com/cat.png"]))
    assert not r.ok and "not URLs" in (r.error or "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not an image at all", "not an image in a known format"),
        (None, "cannot be decoded"),  # a truncated PNG
        (b"P6\n2 2\n255\n" + bytes(12), "not one of"),  # PPM: decodable, but not an accepted format
    ],
    ids=["garbage", "truncated", "unsupported-format"],
)
async def test_bad_images_get_a_clear_error(
    tmp_path: Path, astronaut: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "bad.img"
    path.write_bytes(content if content is not None else astronaut.read_bytes()[:5000])
    r = await _zoom(_ctx([str(path)]))
    assert not r.ok and r.error_kind == "execution" and message in (r.error or ""), r.error


async def test_decompression_bombs_are_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    Image.new("1", (25_000, 25_000)).save(bomb)  # a few KB on disk, 625 megapixels decoded
    assert bomb.stat().st_size < 200_000
    r = await _zoom(_ctx([str(bomb)]))
    assert not r.ok and ("bomb" in (r.error or "")), r.error


async def test_unknown_names_and_bad_boxes(astronaut: Path) -> None:
    ctx = _ctx([str(astronaut)])
    r = await _zoom(ctx, image="observation_9")
    assert not r.ok and "available: original_image" in (r.error or "")
    swapped = await _zoom(ctx, bbox_2d=[500, 500, 100, 900])  # corners in either order: the same region
    assert swapped.ok and (swapped.data or {})["bbox_2d"] == [100, 500, 500, 900]
    point = await _zoom(ctx, bbox_2d=[500, 500, 500, 500])  # no width: zoomed around, at least MIN_SIDE
    assert point.ok and min((point.data or {})["size"]) >= 28
    r = await _zoom(ctx, bbox_2d=[0, 0, 2000, 10])
    assert not r.ok and r.error_kind == "invalid_arguments"
    missing = await _zoom(_ctx(["/nonexistent/x.png"]))
    assert not missing.ok and "cannot read image" in (missing.error or "")
    directory = await _zoom(_ctx(["/tmp"]))
    assert not directory.ok and "not a file" in (directory.error or "")
    empty = await _zoom(_ctx([""]))
    assert not empty.ok and "empty" in (empty.error or "")


async def test_images_land_in_the_trajectory_store(tmp_path: Path, astronaut: Path) -> None:
    store = TrajectoryStore(tmp_path / "s.db")
    r = await _zoom(_ctx([str(astronaut)], ToolServices(artifacts=store)))
    (digest,) = r.images
    data, media_type = store.get_artifact(digest)  # type: ignore[misc]
    assert media_type == "image/png" and data[:8] == b"\x89PNG\r\n\x1a\n"


async def test_real_receipts_are_read_and_their_stated_totals_checked(shared_data: Path) -> None:
    """ICDAR-2019 SROIE scans (benchmarks/real_data.py at a small size; EVALS.md has all 40): OCR keeps each row
    of the receipt together, so "The total is 9.00" is checked against the row "Total 9,00" and the same total
    plus one is contradicted, in both orders."""
    from benchmarks.real_data import receipts

    results = await receipts(shared_data, n=3)
    read, decided = results["the total is in the text read"], results["the stated total decided by evidence"]
    assert read.checked == 3 and read.agreed >= 2, read.disagreements
    assert decided.checked == 6 and decided.agreed >= 4, decided.disagreements


def test_ocr_keeps_the_rows_of_text_as_they_sit_in_the_image() -> None:
    from judgegraph.tools.images.regions import ocr

    img = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=40)
    for y, (left, right) in enumerate([("Subtotal", "8,49"), ("Total", "9,00"), ("Cash", "10.00")]):
        draw.text((40, 30 + 90 * y), left, fill="black", font=font)
        draw.text((600, 30 + 90 * y), right, fill="black", font=font)
    rows = ocr(img).splitlines()
    assert rows == ["Subtotal 8,49", "Total 9,00", "Cash 10.00"], rows


async def test_text_read_in_a_zoomed_region_is_evidence_for_claims(tmp_path: Path) -> None:
    """The claim checker reads the whole image, and the regions this run zoomed into and read: small print is
    evidence once the judge has looked at it, and only then."""
    from judgegraph.evals._sets import CORNER, _photo_card

    path = tmp_path / "card.png"
    _photo_card("cat", 130).save(path)  # type: ignore[attr-defined]
    request = JudgeRequest(
        id="i",
        prompt="Which number?",
        candidates=["The card says No. 130.", "The card says No. 19."],
        images=[str(path)],
    )
    ctx = ToolContext(request=request, services=ToolServices(), scope=RunScope(request))

    async def checked(candidate: int) -> dict[str, int]:
        r = await call_tool(ToolCall(name="check_propositions", arguments={"candidate": candidate}), ctx)
        assert r.ok and r.data is not None
        return {k: r.data[k] for k in ("supported", "contradicted", "not_found")}

    assert await checked(0) == {"supported": 0, "contradicted": 0, "not_found": 1}  # unreadable whole
    assert (await _zoom(ctx, bbox_2d=CORNER, ocr=True)).ok
    assert await checked(0) == {"supported": 1, "contradicted": 0, "not_found": 0}
    assert await checked(1) == {"supported": 0, "contradicted": 1, "not_found": 0}


async def test_a_candidates_own_image_is_no_evidence(small_text: Path) -> None:
    request = JudgeRequest(
        id="i",
        prompt="Which room?",
        candidates=[{"content": "The label says ROOM 42.", "images": [str(small_text)]}, "x y"],
    )
    ctx = ToolContext(request=request, services=ToolServices(), scope=RunScope(request))
    zoomed = await _zoom(ctx, image="candidate_0_image_0", bbox_2d=[700, 750, 900, 880], ocr=True)
    assert zoomed.ok and "ROOM 42" in zoomed.text
    again = await _zoom(ctx, image="observation_1", bbox_2d=[0, 0, 1000, 1000], ocr=True)  # a crop of it: same
    assert again.ok and ctx.scope is not None and ctx.scope.read == []
