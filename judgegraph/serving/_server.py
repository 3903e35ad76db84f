"""`judgegraph serve`: the reward server. OpenRLHF's remote reward API, a native judge API, health, metrics.

Binds 127.0.0.1 by default; optional API key; request size limit; a concurrency limit answered with 429 and
Retry-After beyond it; a per-request timeout (504).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import time
from collections import Counter, defaultdict
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from judgegraph.adapters._common import evidence_from, evidence_key, group_request, groups, judge_members, member_reward
from judgegraph.errors import field_problems
from judgegraph.runtime._judge import Judge
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import Trajectory
from judgegraph.schema._verdict import Verdict


class ServerConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    judge: str = "evidence"
    api_key: str | None = None
    max_concurrency: int = Field(default=64, ge=1)
    timeout_s: float = Field(default=300.0, gt=0)
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    allow_local_files: bool = False
    """Accept image and document paths on the server's disk. Off: a client could make the judge read any file
    the server can, so over HTTP images come as `data:` URIs and documents as text."""


class RewardRequest(BaseModel):
    """OpenRLHF's remote reward request: `query[i]` is the prompt and the response; `prompts[i]` the prompt."""

    query: list[str]
    prompts: list[str] = Field(default_factory=list)
    labels: list[str | None] = Field(default_factory=list)


class RewardResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[Any]]


class JudgeResponse(BaseModel):
    verdict: Verdict
    trajectory_id: str


class _Metrics:
    """Prometheus text exposition of a few counters, kept by hand (no extra dependency).

    With several worker processes (`serve --workers N`), each writes its own counters to `shared` (one JSON file
    per process, replaced atomically) and `/metrics`, whichever worker answers it, sums them. A busy worker
    writes at most every `PUBLISH_EVERY_S`: a write costs about 0.2 ms of CPU, 5% of a rule-decided request."""

    PUBLISH_EVERY_S = 0.2
    """How stale another worker's counters in /metrics can be (the answering worker's own are always current)."""

    def __init__(self, shared: Path | None = None) -> None:
        self.requests: Counter[tuple[str, int]] = Counter()
        self.latency_sum: defaultdict[str, float] = defaultdict(float)
        self.latency_count: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.in_flight = 0
        self.shared = shared
        self._scheduled = False

    def _snapshot(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "requests": [[p, s, n] for (p, s), n in self.requests.items()],
            "latency_sum": dict(self.latency_sum),
            "latency_count": dict(self.latency_count),
            "tools": dict(self.tools),
            "in_flight": self.in_flight,
        }

    def publish(self) -> None:
        """Write this process's counters where the other workers read them (no-op for a single process)."""
        if self.shared is None:
            return
        path = self.shared / f"{os.getpid()}.json"
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(self._snapshot()))
        partial.replace(path)

    def publish_soon(self) -> None:
        """`publish` within `PUBLISH_EVERY_S`, once for all the changes until then (call from the event loop)."""
        if self.shared is None or self._scheduled:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_later(self.PUBLISH_EVERY_S, self._publish_scheduled)

    def _publish_scheduled(self) -> None:
        self._scheduled = False
        self.publish()

    def _gathered(self) -> tuple[list[dict[str, Any]], int]:
        if self.shared is None:
            return [self._snapshot()], 1
        self.publish()
        snapshots, live = [], 0
        for file in self.shared.glob("*.json"):
            try:
                snap = json.loads(file.read_text())
            except (OSError, json.JSONDecodeError):
                continue
            if _alive(int(snap["pid"])):
                live += 1
            else:
                snap["in_flight"] = 0  # a worker that died holds nothing in flight; its counts still count
            snapshots.append(snap)
        return snapshots, live

    def render(self) -> str:
        snapshots, workers = self._gathered()
        requests: Counter[tuple[str, int]] = Counter()
        latency_sum: defaultdict[str, float] = defaultdict(float)
        latency_count: Counter[str] = Counter()
        tools: Counter[str] = Counter()
        for snap in snapshots:
            requests.update({(p, int(st)): n for p, st, n in snap["requests"]})
            for path, total in snap["latency_sum"].items():
                latency_sum[path] += total
            latency_count.update(snap["latency_count"])
            tools.update(snap["tools"])
        in_flight = sum(int(snap["in_flight"]) for snap in snapshots)
        lines = ["# TYPE judgegraph_requests_total counter"]
        lines += [
            f'judgegraph_requests_total{{path="{p}",status="{st}"}} {n}' for (p, st), n in sorted(requests.items())
        ]
        lines += ["# TYPE judgegraph_request_seconds summary"]
        for path in sorted(latency_count):
            lines += [
                f'judgegraph_request_seconds_sum{{path="{path}"}} {latency_sum[path]:.6f}',
                f'judgegraph_request_seconds_count{{path="{path}"}} {latency_count[path]}',
            ]
        lines += ["# TYPE judgegraph_tool_calls_total counter"]
        lines += [f'judgegraph_tool_calls_total{{tool="{t}"}} {n}' for t, n in sorted(tools.items())]
        lines += ["# TYPE judgegraph_in_flight gauge", f"judgegraph_in_flight {in_flight}"]
        lines += ["# TYPE judgegraph_workers gauge", f"judgegraph_workers {workers}"]
        return "\n".join(lines) + "\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def create_app(config: ServerConfig, *, metrics_dir: Path | None = None, **judge_settings: Any) -> FastAPI:
    """The reward server's ASGI app (the judge opens when the app starts, closes when it stops).

    Args:
        metrics_dir: a folder the worker processes of one server share their counters through.
    """
    state: dict[str, Any] = {}
    metrics = _Metrics(metrics_dir)
    limit = asyncio.Semaphore(config.max_concurrency)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        judge = Judge.load(config.judge, **judge_settings)
        await judge.open()
        state["judge"] = judge
        metrics.publish()  # a worker counts as live from its start, not from its first request
        try:
            yield
        finally:
            metrics.publish()  # its last counts, which a publish still scheduled would no longer write
            await judge.aclose()

    app = FastAPI(title="judgegraph reward server", version="1", lifespan=lifespan)

    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        """FastAPI's 422 `detail`, and beside it a `message` naming each wrong or missing field of the body in
        the caller's terms (`candidates: Field required`, `labels.2: ...`)."""
        errors = [
            {**err, "loc": tuple(err["loc"])[1:] if tuple(err["loc"])[:1] == ("body",) else err["loc"]}
            for err in exc.errors()
        ]
        detail = jsonable_encoder(exc.errors(), custom_encoder={BaseException: str})
        return JSONResponse({"detail": detail, "message": field_problems(errors, whole="body")}, status_code=422)

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        path = request.url.path
        if path in ("/health", "/metrics", "/openapi.json", "/docs"):
            return await call_next(request)
        if config.api_key is not None:
            given = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix("Bearer ")
            if not hmac.compare_digest(given.encode(), config.api_key.encode()):
                metrics.requests[(path, 401)] += 1
                metrics.publish_soon()
                return JSONResponse({"detail": "a valid API key is required"}, status_code=401)
        size = int(request.headers.get("content-length") or 0)
        if size > config.max_body_bytes:
            metrics.requests[(path, 413)] += 1
            metrics.publish_soon()
            return JSONResponse({"detail": f"request body over {config.max_body_bytes} bytes"}, status_code=413)
        if limit.locked():
            metrics.requests[(path, 429)] += 1
            metrics.publish_soon()
            return JSONResponse(
                {"detail": "busy: too many requests in flight"}, status_code=429, headers={"Retry-After": "1"}
            )
        start = time.perf_counter()
        async with limit:
            metrics.in_flight += 1
            metrics.publish_soon()
            try:
                response = await asyncio.wait_for(call_next(request), timeout=config.timeout_s)
            except TimeoutError:
                response = JSONResponse({"detail": f"judging took longer than {config.timeout_s:g}s"}, status_code=504)
            finally:
                metrics.in_flight -= 1
        metrics.requests[(path, response.status_code)] += 1
        metrics.latency_sum[path] += time.perf_counter() - start
        metrics.latency_count[path] += 1
        metrics.publish_soon()
        return response

    def _admit(request: JudgeRequest, loc: tuple[str | int, ...]) -> JudgeRequest:
        """Refuse a request naming files on the server's disk (unless allowed), before any of a batch is judged."""
        if not config.allow_local_files and (paths := local_files(request)):
            raise _invalid(
                loc,
                f"this server does not read files from its disk ({', '.join(paths[:3])}): send images as data: "
                "URIs and documents as text, or start it with --allow-local-files",
                paths,
            )
        return request

    async def _trajectory(request: JudgeRequest) -> Trajectory:
        t: Trajectory = await state["judge"].arun(request)
        for r in t.tool_results():
            metrics.tools[r.name] += 1
        return t

    async def _run(request: JudgeRequest) -> JudgeResponse:
        t = await _trajectory(request)
        assert t.verdict is not None
        return JudgeResponse(verdict=t.verdict, trajectory_id=t.id)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "judge": config.judge}

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics_text() -> str:
        return metrics.render()

    @app.post("/v1/judge")
    async def judge_one(request: JudgeRequest) -> JudgeResponse:
        """Judge one request."""
        return await _run(_admit(request, ("body",)))

    @app.post("/v1/judge/batch")
    async def judge_batch(requests: list[JudgeRequest]) -> list[JudgeResponse]:
        """Judge several requests (concurrently). Unlabelled pointwise requests of one response each that share all
        else (a prompt's rollouts) are judged as one group: each gets its own score, and the group's trajectory."""
        admitted = [_admit(r, ("body", i)) for i, r in enumerate(requests)]
        members = groups([_group_key(r) or f"alone-{i}" for i, r in enumerate(admitted)])

        async def one(group: list[int]) -> list[JudgeResponse]:
            if len(group) == 1:
                return [await _run(admitted[group[0]])]
            first = admitted[group[0]]
            together = first.model_copy(update={"candidates": [admitted[i].candidates[0] for i in group]})
            ruled = await judge_members(_trajectory, together)  # one response's failure is never its group's
            return [JudgeResponse(verdict=verdict, trajectory_id=tid) for verdict, tid in ruled]

        out: list[JudgeResponse | None] = [None] * len(admitted)
        for group, answers in zip(members, await asyncio.gather(*(one(g) for g in members)), strict=True):
            for i, answer in zip(group, answers, strict=True):
                out[i] = answer
        return [a for a in out if a is not None]

    @app.post("/reward")
    async def reward(body: RewardRequest) -> RewardResponse:
        """OpenRLHF's remote reward API: each response is `query[i]` with `prompts[i]` removed; `labels[i]` is a
        reference answer or a JSON object of JudgeRequest evidence fields. A response no evidence decides, with an
        untrusted model (`Settings.undecided`), abstains: reward 0.0 with `extra_logs.valid` false and
        `extra_logs.abstained` true, the mask to drop it by."""
        n = len(body.query)
        if (body.prompts and len(body.prompts) != n) or (body.labels and len(body.labels) != n):
            raise _invalid(("body",), "query, prompts and labels must have the same length", body.model_dump())
        responses, evidence, prompts = [], [], []
        for i, query in enumerate(body.query):
            prompt = body.prompts[i] if body.prompts else ""
            responses.append(query[len(prompt) :] if prompt and query.startswith(prompt) else query)
            label = body.labels[i] if body.labels else None
            try:
                evidence.append(evidence_from(label))
            except ValueError as e:
                raise _invalid(("body", "labels", i), f"item {i}: {e}", label) from None
            prompts.append(prompt)
        # The responses to one prompt (with one label) are one group judgment: OpenRLHF sends a prompt's samples
        # together, and their shared evidence is then gathered once.
        members = groups([(p, evidence_key(e)) for p, e in zip(prompts, evidence, strict=True)])
        requests = []
        for group in members:
            first = group[0]
            try:
                request = group_request(
                    f"reward-{first}", prompts[first], [responses[i] for i in group], evidence[first]
                )
            except ValueError as e:
                label = body.labels[first] if body.labels else None
                raise _invalid(("body", "labels", first), f"item {first}: {e}", label) from None
            requests.append(_admit(request, ("body", "labels", first)))
        # a response whose judgment fails is that response's: judged alone, it alone has no ruling
        results = await asyncio.gather(*(judge_members(_trajectory, r) for r in requests))
        scores = [0.0] * n
        logs: dict[str, list[Any]] = {"valid": [False] * n, "decided_by": [""] * n, "trajectory_id": [""] * n}
        logs["abstained"] = [False] * n
        undecided = state["judge"].settings.undecided_reward()
        for group, ruled in zip(members, results, strict=True):
            for i, (verdict, trajectory_id) in zip(group, ruled, strict=True):
                kept, abstained = member_reward(verdict, undecided)
                # OpenRLHF needs a number for every sample: 0.0, with `valid` false (and `abstained`) as the mask
                scores[i] = 0.0 if kept is None else kept
                logs["valid"][i] = kept is not None
                logs["abstained"][i] = abstained
                logs["decided_by"][i] = verdict.decided_by
                logs["trajectory_id"][i] = trajectory_id
        return RewardResponse(rewards=scores, scores=scores, extra_logs=logs)

    return app


def _group_key(request: JudgeRequest) -> str | None:
    """What a rollout shares with the others of its group (all but its id and its response), or None for a request
    that is not a group's member (it has a label, or is not a pointwise judgment of one response)."""
    if request.mode != "pointwise" or len(request.candidates) != 1 or request.label is not None:
        return None
    return request.model_dump_json(exclude={"id", "candidates"})


def local_files(request: JudgeRequest) -> list[str]:
    """The image and document paths a request names on the server's disk."""
    images = [*request.images, *(src for c in request.candidates for src in c.images)]
    paths = [src for src in images if not src.startswith("data:")]
    return paths + [d.path for d in request.documents if d.path]


def _invalid(loc: tuple[str | int, ...], msg: str, value: Any) -> RequestValidationError:
    """A 422 in FastAPI's own shape (the one the OpenAPI spec declares), for rules checked in the handler."""
    return RequestValidationError([{"type": "value_error", "loc": loc, "msg": msg, "input": value}])


WORKER_SPEC = "JUDGEGRAPH_SERVE_SPEC"
"""The environment variable that hands `serve --workers N`'s configuration to each worker process."""


def app_from_environment() -> FastAPI:
    """The app of one worker of `serve --workers N` (uvicorn imports this factory in every worker process)."""
    from judgegraph._gc import tune_gc

    tune_gc()
    spec = json.loads(os.environ[WORKER_SPEC])
    shared = Path(spec["metrics_dir"])
    return create_app(ServerConfig.model_validate(spec["config"]), metrics_dir=shared, **spec["settings"])
