"""The viewer's pages and data, without a browser (tests/test_viz_browser.py drives it in Chromium)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from judgegraph.schema import Trajectory
from judgegraph.store import RunFilter, TrajectoryStore
from judgegraph.viz import _views as views
from judgegraph.viz import create_app
from tests.viz_fixtures import build_store_sync, demo_requests


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    path = tmp_path_factory.mktemp("viz") / "runs.db"
    yield path, build_store_sync(path)


@pytest.fixture(scope="module")
def client(demo: tuple[Path, dict[str, str]]) -> Iterator[TestClient]:
    path, _ = demo
    evals = path.parent / "evals" / "suite-x"
    evals.mkdir(parents=True)
    (evals / "report.json").write_text(json.dumps({"suite": "x", "accuracy": 0.75, "per_category": {"math": 1.0}}))
    (evals / "accuracy.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    with TestClient(create_app(path, evals_dir=path.parent / "evals")) as c:
        yield c


def test_store_filters_counts_and_pages(demo: tuple[Path, dict[str, str]]) -> None:
    path, ids = demo
    store = TrajectoryStore(path)
    total = store.count_runs()
    assert total.total == len(ids) - 1  # every example, plus the recorded replay (`original` is `math-mult`)
    assert total.correct + total.wrong <= total.total and total.correct > 0
    correct = store.list_runs(where=RunFilter(correct=True), limit=100)
    assert len(correct) == store.count_runs(RunFilter(correct=True)).total and all(r.correct for r in correct)
    zoomed = store.list_runs(where=RunFilter(tool="zoom_image"), limit=100)
    assert ids["image-ocr"] in {r.id for r in zoomed} and all("zoom_image" in r.tools for r in zoomed)
    assert [r.id for r in store.list_runs(where=RunFilter(text="image-ocr"))] == [ids["image-ocr"]]
    assert store.list_runs(where=RunFilter(text="100%_no_such")) == []  # LIKE wildcards are literal
    both = store.list_runs(where=RunFilter(consistent=True), limit=100)
    assert both and all(r.consistent for r in both)
    first, second = store.list_runs(limit=5), store.list_runs(limit=5, offset=5)
    assert not {r.id for r in first} & {r.id for r in second}
    t = store.get(ids["image-ocr"])
    assert store.events(t.id, offset=2, limit=3) == t.events[2:5] and store.event_count(t.id) == len(t.events)
    assert store.event(t.id, t.events[4].seq) == t.events[4] and store.event(t.id, 10**6) is None
    assert store.get(t.id, events=False).events == [] and store.get(t.id, events=False).verdict == t.verdict


def test_crop_boxes_sit_on_their_source_image(demo: tuple[Path, dict[str, str]]) -> None:
    path, ids = demo
    t = TrajectoryStore(path).get(ids["image-ocr"])
    sizes = views.ImageSizes(t, lambda i: (640, 420))
    rows = [views.row(e, sizes) for e in t.events]
    crops = [r.crop for r in rows if r.crop is not None]
    assert crops and crops[0].source == "original_image" and crops[0].source_url == f"/runs/{t.id}/inputs/0"
    assert crops[0].box == (0.0, 0.0, 1.0, 1.0)  # the first observation is the whole image
    assert any(r.images for r in rows)


def test_diff_marks_the_first_divergence(demo: tuple[Path, dict[str, str]]) -> None:
    path, ids = demo
    store = TrajectoryStore(path)
    a, b = store.get(ids["original"]), store.get(ids["counterfactual"])
    d = views.diff(a, b)
    assert d.divergence is not None and d.first is not None
    _, rb, differs = d.pairs[d.first]
    assert differs and rb is not None and rb.kind == "tool-result" and rb.text == "counterfactual failure"
    same = views.diff(a, a)
    assert same.divergence is None and same.first is None


def test_pages_render(client: TestClient, demo: tuple[Path, dict[str, str]]) -> None:
    _, ids = demo
    home = client.get("/")
    assert home.status_code == 200 and ids["image-ocr"] in home.text and "runs" in home.text
    filtered = client.get("/", params={"correct": "no", "judge": "evidence"})
    assert filtered.status_code == 200
    run = client.get(f"/runs/{ids['image-ocr']}")
    assert run.status_code == 200
    assert 'class="node visited"' in run.text and 'class="edge taken"' in run.text  # the path, highlighted
    for request in demo_requests():  # every candidate's text is on its run's page
        shown = client.get(f"/runs/{ids[str(request.id)]}").text
        assert all(str(escape(c.content)) in shown for c in request.candidates), request.id
    assert "crop-box" in run.text and f"/runs/{ids['image-ocr']}/inputs/0" in run.text
    doc = client.get(f"/runs/{ids['document-claims']}")
    assert 'id="claims"' in doc.text  # per-claim results of the proposition checker
    made = client.get(f"/runs/{ids['code-statement']}")
    assert 'id="made-evidence"' in made.text and "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)" in made.text
    code = client.get(f"/runs/{ids['code']}")
    assert "run_code" in code.text
    judges = client.get("/judges")
    assert all(f'id="judge-{name}"' in judges.text for name in ("evidence", "agentic", "rubric", "skill"))
    diff = client.get("/diff", params={"a": ids["original"], "b": ids["counterfactual"]})
    assert 'id="first-divergence"' in diff.text and "First divergence" in diff.text
    evals = client.get("/evals")
    assert "suite-x" in evals.text and "0.75" in evals.text and "/evals/suite-x/accuracy.png" in evals.text
    assert client.get("/evals/suite-x/accuracy.png").content.startswith(b"\x89PNG")


def test_artifacts_inputs_and_raw_events(client: TestClient, demo: tuple[Path, dict[str, str]]) -> None:
    path, ids = demo
    t = TrajectoryStore(path).get(ids["image-ocr"])
    digest = next(r.images[0] for r in t.tool_results() if r.images)
    image = client.get(f"/artifacts/{digest}")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert client.get(f"/runs/{t.id}/inputs/0").content[:4] == b"\x89PNG"
    raw = client.get(f"/api/runs/{t.id}/events/{t.events[3].seq}").json()
    assert raw["seq"] == t.events[3].seq
    for url in (
        f"/artifacts/{'0' * 64}",
        f"/runs/{t.id}/inputs/7",
        "/runs/run_nope",
        f"/api/runs/{t.id}/events/99999",
        "/evals/suite-x/nope.png",
    ):
        assert client.get(url).status_code == 404, url
    assert client.get("/", params={"since": "not a date"}).status_code == 422


def test_long_runs_are_paged(tmp_path: Path, demo: tuple[Path, dict[str, str]]) -> None:
    path, ids = demo
    t = TrajectoryStore(path).get(ids["image-ocr"])
    big = Trajectory.model_validate(t.model_dump())
    big.id = "run_long"
    template = [e for e in t.events if e.event == "node"]
    big.events = [template[i % len(template)].model_copy(update={"seq": i}) for i in range(250)]
    store = TrajectoryStore(tmp_path / "big.db")
    store.start_run(big)
    store.finish_run(big)
    with TestClient(create_app(tmp_path / "big.db")) as c:
        first = c.get("/runs/run_long")
        assert "page 1 of 3" in first.text and 'id="event-99"' in first.text and 'id="event-100"' not in first.text
        last = c.get("/runs/run_long", params={"page": 3})
        assert 'id="event-249"' in last.text and 'id="event-199"' not in last.text


def test_viz_command_errors_are_clear(tmp_path: Path, demo: tuple[Path, dict[str, str]]) -> None:
    import socket

    from typer.testing import CliRunner

    from judgegraph.cli import app

    missing = CliRunner().invoke(app, ["viz", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no trajectory store" in missing.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = CliRunner().invoke(app, ["viz", "--store", str(demo[0]), "--port", str(port)])
    assert busy.exit_code == 2 and f"port {port}" in busy.output and "--port" in busy.output


def test_checks_the_judge_made_show_where_inputs_came_from_and_the_derived_outputs() -> None:
    from judgegraph.schema import ToolResult
    from judgegraph.tools import DifferentialResult, Disagreement, OracleCase, OracleCheckResult

    diff = DifferentialResult(
        style="call",
        inputs_tried=3,
        model_inputs=1,
        disagreements=[
            Disagreement(input="3", outputs=["6", "7"]),
            Disagreement(input="12345", outputs=["24690", "0"], origin="model"),
        ],
        disagreement_count=2,
        groups=[[0], [1]],
        passes_examples=[True, True],
    )
    oracle = OracleCheckResult(
        candidate=1,
        cases=[OracleCase(input="12345", expected="24690", votes=3, got="0", agrees=False)],
        samples=3,
        working=3,
        disagrees=1,
        decisive=1,
    )
    results = [
        ToolResult(call_id="c1", name="differential_test", ok=True, text="", data=diff.model_dump()),
        ToolResult(call_id="c2", name="oracle_check", ok=True, text="", data=oracle.model_dump()),
    ]
    made = views.made_evidence(results)
    assert [(m.kind, m.outcome) for m in made] == [
        ("disagreement", "outputs differ"),
        ("disagreement", "outputs differ (an input the model's generator wrote)"),
        ("derived", "differs"),
    ]
    assert made[2].expected == "24690 (3/3 programs)" and made[2].candidate == "1"


def test_a_derived_reference_and_recomputed_arithmetic_show_among_the_checks_the_judge_made() -> None:
    from judgegraph.schema import ToolResult
    from judgegraph.tools import CheckComputationsResult, CheckedComputation, Derivation, DerivedReferenceResult

    derived = DerivedReferenceResult(
        candidate=1,
        extracted="720",
        derived=Derivation(answer="120", votes=2, samples=3, share=2 / 3, answers=["120", "120", "720"], programs=[]),
        matches=False,
        decisive=True,
    )
    checked = CheckComputationsResult(
        candidate=0,
        computations=[
            CheckedComputation(written="9 - 3 = 7", value="6", finding="wrong"),
            CheckedComputation(written="6 + 4 = 10", value="10", finding="right"),
        ],
        wrong=1,
    )
    results = [
        ToolResult(call_id="c1", name="derived_reference", ok=True, text="", data=derived.model_dump()),
        ToolResult(call_id="c2", name="check_computations", ok=True, text="", data=checked.model_dump()),
    ]
    made = views.made_evidence(results)
    assert [(m.kind, m.candidate, m.outcome) for m in made] == [
        ("derived", "1", "differs"),
        ("computation", "0", "wrong"),
        ("computation", "0", "right"),
    ]
    assert made[0].expected == "120 (2/3 programs)" and made[0].got == "720"
    assert made[1].input == "9 - 3 = 7" and made[1].expected == "6"
