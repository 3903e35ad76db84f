"""`judgegraph viz`: a local web app over a trajectory store. Every asset is served from here (no CDN)."""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import math
import mimetypes
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from judgegraph.errors import RunNotFoundError
from judgegraph.schema import ToolResultEvent, Trajectory
from judgegraph.store import RunFilter, TrajectoryStore
from judgegraph.viz import _views as views

HERE = Path(__file__).resolve().parent
PAGE_RUNS = 50


def _flag(value: str | None) -> bool | None:
    return {"yes": True, "no": False}.get(value or "")


def _date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise HTTPException(422, f"not a date: {value!r} (use YYYY-MM-DD)") from None


@functools.lru_cache(maxsize=32)
def _compiled(judge: str) -> Any:
    from judgegraph.agents import judges
    from judgegraph.graphs import build_graph

    spec = judges.get(judge)
    return spec, build_graph(spec).compiled


@functools.lru_cache(maxsize=256)
def _svg(judge: str, path: tuple[str, ...]) -> str:
    """The judge's graph as inline SVG, `path` highlighted (empty when the judge is no longer registered)."""
    from judgegraph.errors import JudgegraphError
    from judgegraph.output._draw import draw

    try:
        _, compiled = _compiled(judge)
        svg = draw(compiled, "svg", path).decode()
    except JudgegraphError:
        return ""
    return svg[svg.index("<svg") :]


def _input_image(t: Trajectory, index: int) -> tuple[bytes, str]:
    if index >= len(t.request.images):
        raise HTTPException(404, "no such input image")
    src = t.request.images[index]
    if src.startswith("data:"):
        head, _, payload = src.partition(",")
        try:
            return base64.b64decode(payload), head[5:].split(";")[0] or "application/octet-stream"
        except (binascii.Error, ValueError):
            raise HTTPException(422, "the input image's data URI is not valid base64") from None
    path = Path(src)
    if "://" in src or not path.is_file():
        raise HTTPException(404, f"input image {src!r} is not on this machine")
    return path.read_bytes(), mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def create_app(store_path: Path, *, evals_dir: Path | None = None) -> FastAPI:
    """The viewer over the store at `store_path` (opened read-write for its WAL, never written)."""
    store = TrajectoryStore(store_path)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(title="judgegraph viz", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    # A name the template misreads is an error, not an empty box on the page.
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True, undefined=jinja2.StrictUndefined
    )
    templates = Jinja2Templates(env=env)
    templates.env.globals["store_path"] = str(store_path)
    templates.env.globals["nav"] = ""  # the page's own tab in the top bar, where a page sets one

    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context)

    def get_run(run_id: str, *, events: bool) -> Trajectory:
        try:
            return store.get(run_id, events=events)
        except RunNotFoundError as e:
            raise HTTPException(404, str(e)) from None

    @app.get("/", response_class=HTMLResponse)
    def runs(
        request: Request,
        q: str | None = None,
        judge: str | None = None,
        correct: str | None = None,
        valid: str | None = None,
        consistent: str | None = None,
        status: str | None = None,
        tool: str | None = None,
        since: str | None = None,
        until: str | None = None,
        offset: int = Query(0, ge=0),
    ) -> HTMLResponse:
        where = RunFilter(
            judge=judge or None,
            status=status or None,
            correct=_flag(correct),
            valid=_flag(valid),
            consistent=_flag(consistent),
            tool=tool or None,
            since=_date(since),
            until=_date(until),
            text=q or None,
        )
        counts = store.count_runs(where)
        rows = store.list_runs(where=where, limit=PAGE_RUNS, offset=offset)
        # Every filter has a value for the form ("" when unset); the paging links carry the ones that are set.
        args = dict.fromkeys(("q", "judge", "correct", "valid", "consistent", "status", "tool", "since", "until"), "")
        args |= {k: v for k, v in request.query_params.items() if k in args and v}
        return page(
            request,
            "runs.html",
            rows=rows,
            counts=counts,
            all_counts=store.count_runs(),
            args=args,
            judges=store.judges(),
            tools=store.tools_used(),
            offset=offset,
            page_size=PAGE_RUNS,
        )

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run(request: Request, run_id: str, page_no: int = Query(1, alias="page", ge=1)) -> HTMLResponse:
        t = get_run(run_id, events=False)
        total = store.event_count(t.id)
        pages = max(1, math.ceil(total / views.PAGE_EVENTS))
        # Zoom boxes refer to earlier observations: read the events before this page without rendering them.
        before = store.events(t.id, offset=0, limit=(page_no - 1) * views.PAGE_EVENTS) if page_no > 1 else []
        events = store.events(t.id, offset=(page_no - 1) * views.PAGE_EVENTS, limit=views.PAGE_EVENTS)
        sizes = views.ImageSizes(t, functools.partial(_image_size, t))
        for e in before:
            views.row(e, sizes)
        rows = [views.row(e, sizes) for e in events]
        results = [e.result for e in [*before, *events] if isinstance(e, ToolResultEvent)]
        return page(
            request,
            "run.html",
            t=t,
            rows=rows,
            page=page_no,
            pages=pages,
            total=total,
            svg=_svg(t.judge, tuple(t.path)),
            visits=_visits(t.path),
            claims=views.claims(results),
            made=views.made_evidence(results),
            correct=t.correct,
        )

    @app.get("/runs/{run_id}/inputs/{index}")
    def input_image(run_id: str, index: int) -> Response:
        data, media_type = _input_image(get_run(run_id, events=False), index)
        return Response(data, media_type=media_type, headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/runs/{run_id}/events/{seq}")
    def event(run_id: str, seq: int) -> JSONResponse:
        t = get_run(run_id, events=False)
        found = store.event(t.id, seq)
        if found is None:
            raise HTTPException(404, f"run {t.id} has no event {seq}")
        return JSONResponse(found.model_dump(mode="json"))

    @app.get("/api/runs")
    def api_runs(judge: str | None = None, limit: int = Query(50, ge=1, le=1000), offset: int = Query(0, ge=0)) -> Any:
        return [r.model_dump(mode="json") for r in store.list_runs(judge=judge, limit=limit, offset=offset)]

    @app.get("/artifacts/{digest}")
    def artifact(digest: str) -> Response:
        found = store.get_artifact(digest)
        if found is None:
            raise HTTPException(404, f"no artifact {digest}")
        data, media_type = found
        return Response(data, media_type=media_type, headers={"Cache-Control": "max-age=31536000, immutable"})

    @app.get("/judges", response_class=HTMLResponse)
    def judges(request: Request) -> HTMLResponse:
        from judgegraph.agents import judges

        specs = [_compiled(name)[0] for name in judges.names()]
        return page(request, "judges.html", specs=specs, svgs={s.name: _svg(s.name, ()) for s in specs})

    @app.get("/diff", response_class=HTMLResponse)
    def diff(request: Request, a: str | None = None, b: str | None = None) -> HTMLResponse:
        result = views.diff(get_run(a, events=True), get_run(b, events=True)) if a and b else None
        return page(request, "diff.html", d=result, a=a or "", b=b or "")

    @app.get("/evals", response_class=HTMLResponse)
    def evals(request: Request) -> HTMLResponse:
        return page(request, "evals.html", reports=views.eval_reports(evals_dir), evals_dir=evals_dir)

    @app.get("/evals/{name:path}/{plot}")
    def eval_plot(name: str, plot: str) -> Response:
        for report in views.eval_reports(evals_dir):
            if report.name == name and plot in report.plots:
                return Response((report.path / plot).read_bytes(), media_type="image/png")
        raise HTTPException(404, "no such plot")

    return app


def _visits(path: list[str]) -> list[tuple[str, int]]:
    from collections import Counter

    return sorted(Counter(path).items(), key=lambda kv: path.index(kv[0]))


def _image_size(t: Trajectory, index: int) -> tuple[int, int] | None:
    from io import BytesIO

    from PIL import Image, UnidentifiedImageError

    try:
        data, _ = _input_image(t, index)
        with Image.open(BytesIO(data)) as image:
            return image.size
    except (HTTPException, UnidentifiedImageError, OSError):
        return None
