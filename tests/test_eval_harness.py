"""The eval harness: bundled sets (deterministic, labels verified), benchmark loaders and their official
scoring on hand-made files, metrics on known outcomes, and `judgegraph eval` end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, prefers
from judgegraph.cli import app
from judgegraph.evals._benchmarks import benchmarks
from judgegraph.evals._metrics import Outcome, calibration, metrics, per_category
from judgegraph.evals._sets import build_set
from judgegraph.tools.images.regions import ocr
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "benchmarks"


@pytest.mark.parametrize(
    "name",
    [
        "math",
        "instructions",
        "length-bias",
        "documents",
        "library",
        "images",
        "open-ended",
        "injection",
        "code-noref",
        "math-noref",
        "contest-noref",
    ],
)
async def test_bundled_sets_are_deterministic_and_labelled(name: str) -> None:
    a, b = await build_set(name, 6), await build_set(name, 6)
    assert [r.model_dump() for r in a] == [r.model_dump() for r in b]
    assert len(a) == 6 and len({r.id for r in a}) == 6
    for r in a:
        assert r.label is not None and r.label.winner in (0, 1) and r.metadata["category"]
    if name in ("documents", "library", "images", "open-ended", "injection") or name.endswith("-noref"):
        # the label is not always the first one
        assert {r.label.winner for r in a if r.label} == {0, 1}
    assert await build_set(name, 6, seed=1) != a or name == "open-ended"
    if name.endswith("-noref"):  # the question and the responses, nothing else
        assert not any(r.tests or r.reference or r.documents or r.images or r.constraints for r in a)


async def test_document_and_image_labels_hold_against_their_evidence() -> None:
    import base64
    import io

    from PIL import Image

    for r in await build_set("documents", 8):
        assert r.label is not None and r.label.winner is not None
        doc = set(re.findall(r"\d+", r.documents[0].text or ""))
        right, wrong = r.candidates[r.label.winner].content, r.candidates[1 - r.label.winner].content
        assert set(re.findall(r"\d+", str(right))) <= doc and not set(re.findall(r"\d+", str(wrong))) <= doc
    for r in await build_set("library", 6):  # the right number in the named guide, the wrong one in another
        assert r.label is not None and r.label.winner is not None and len(r.documents) == 16
        right, wrong = r.candidates[r.label.winner].content, r.candidates[1 - r.label.winner].content
        named = next(d for d in r.documents if d.id.replace("-", " ") in r.prompt.lower())
        in_guide = {d.id: set(re.findall(r"\d+", " ".join(d.pages or []))) for d in r.documents}
        assert set(re.findall(r"\d+", str(right))) <= in_guide[named.id]
        assert not set(re.findall(r"\d+", str(wrong))) & in_guide[named.id]
        assert any(set(re.findall(r"\d+", str(wrong))) <= numbers for numbers in in_guide.values())
    images = await build_set("images", 4)
    assert {r.metadata["category"] for r in images} == {"images: sign", "images: photo card"}
    for r in images:
        assert r.label is not None and r.label.winner is not None
        image = Image.open(io.BytesIO(base64.b64decode(r.images[0].split(",", 1)[1])))
        truth = re.findall(r"\d+", str(r.candidates[r.label.winner].content))[0]
        assert truth in ocr(image)  # the evidence a judge must read is there


def _outcome(request_id: str, winner: int | None, valid: bool = True, scores: list[float] | None = None) -> Outcome:
    return Outcome(id=request_id, category="x", valid=valid, winner=winner, scores=scores or [])


def test_rewardbench_loader_and_official_scoring() -> None:
    bench = benchmarks.get("rewardbench")
    requests = bench.load(DATA / "rewardbench.jsonl")
    assert [r.metadata["category"] for r in requests] == [
        "alpacaeval-easy",
        "math-prm",
        "hep-python",
        "refusals-dangerous",
    ]
    winners = [r.label.winner for r in requests if r.label and r.label.winner is not None]
    assert len(winners) == 4
    for r, w in zip(requests, winners, strict=True):  # the chosen answer sits where the label says
        assert r.candidates[w].content in {
            "Hi there!",
            "4",
            "def add(a, b):\n    return a + b",
            "I can't help with breaking into property.",
        }
    outcomes = [
        _outcome("1", winners[0]),
        _outcome("2", 1 - winners[1]),
        _outcome("3", None),
        _outcome("4", None, valid=False),
    ]
    score = bench.score(requests, outcomes)
    assert score["subsets"] == {"alpacaeval-easy": 1.0, "hep-python": 0.5, "math-prm": 0.0, "refusals-dangerous": 0.5}
    # Reasoning weighs math-prm (984) against the code subset present (164).
    assert score["sections"]["Reasoning"] == pytest.approx((0.0 * 984 + 0.5 * 164) / (984 + 164))
    assert score["score"] == pytest.approx((1.0 + score["sections"]["Reasoning"] + 0.5) / 3)


def test_rewardbench2_best_of_n_with_ties_at_the_top() -> None:
    bench = benchmarks.get("rewardbench2")
    a, b = bench.load(DATA / "rewardbench2.jsonl")
    assert a.mode == "listwise" and len(a.candidates) == 4
    ca = a.metadata["correct"][0]
    top_a = [0.1] * 4
    top_a[ca] = 0.9
    tied_b = [0.9] * 4  # all four tied at the top: 1/4
    score = bench.score([a, b], [_outcome("a", ca, scores=top_a), _outcome("b", None, scores=tied_b)])
    assert score["subsets"] == {"Factuality": 1.0, "Precise IF": 0.25}


def test_rm_bench_style_matrix() -> None:
    bench = benchmarks.get("rm-bench")
    requests = bench.load(DATA / "rm-bench.json")
    assert len(requests) == 9
    # Right whenever the chosen answer is at least as detailed as the rejected one; wrong on the 3 hard cells.
    winners = [r.label.winner if r.label and r.label.winner is not None else -1 for r in requests]
    outcomes = [
        _outcome(r.id or "", w if r.metadata["chosen_style"] >= r.metadata["rejected_style"] else 1 - w)
        for r, w in zip(requests, winners, strict=True)
    ]
    score = bench.score(requests, outcomes)
    assert (score["easy"], score["normal"], score["hard"]) == (1.0, 1.0, 0.0)
    assert score["domains"] == {"math": pytest.approx(6 / 9)}


def test_judgebench_micro_accuracy_inconsistent_is_wrong() -> None:
    bench = benchmarks.get("judgebench")
    p1, p2 = bench.load(DATA / "judgebench.jsonl")
    assert p1.label and p1.label.winner == 0 and p2.label and p2.label.winner == 1
    score = bench.score([p1, p2], [_outcome("p1", 0), _outcome("p2", None)])  # p2's two orders disagreed
    assert score["score"] == 0.5 and score["sources"] == {"livebench-reasoning": 0.0, "mmlu": 1.0}
    bad = DATA.parent / "judgebench-bad.jsonl"
    bad.write_text(json.dumps({"pair_id": "x", "question": "q", "response_A": "a", "response_B": "b", "label": "A=B"}))
    try:
        with pytest.raises(ValueError, match="A=B"):
            bench.load(bad)
    finally:
        bad.unlink()


def test_vl_and_multimodal_rewardbench() -> None:
    vl = benchmarks.get("vl-rewardbench")
    v1, v2 = vl.load(DATA / "vl-rewardbench.jsonl")
    assert v1.images == [str(DATA / "card.png")] and v1.metadata["category"] == "hallucination"
    assert v1.label and v2.label and v1.label.winner is not None and v2.label.winner is not None
    assert v1.candidates[v1.label.winner].content == "It says A7."
    assert v2.candidates[v2.label.winner].content == "It says A7."
    score = vl.score([v1, v2], [_outcome("v1", v1.label.winner), _outcome("v2", 1 - v2.label.winner)])
    assert score["score"] == 0.5 and score["macro"] == 0.5 and score["groups"] == {"general": 0.0, "hallucination": 1.0}
    mm = benchmarks.get("mm-rewardbench")
    m1, m2 = mm.load(DATA / "mm-rewardbench.json")
    assert m1.label and m2.label
    right = mm.score([m1, m2], [_outcome("m1", m1.label.winner), _outcome("m2", m2.label.winner)])
    assert right["score"] == 1.0 and right["categories"] == {"vqa": 1.0}
    # An unparseable verdict is a (seeded, so reproducible) random pick, as the benchmark's script does.
    coin = mm.score([m1, m2], [_outcome("m1", None, valid=False), _outcome("m2", None, valid=False)])
    assert coin == mm.score([m1, m2], [_outcome("m1", None, valid=False), _outcome("m2", None, valid=False)])
    assert coin["score"] in (0.0, 0.5, 1.0)


def test_metrics_on_known_outcomes() -> None:
    sure: dict[str, Any] = {"category": "a", "valid": True, "confidence": 0.95}  # one right, one wrong
    outcomes = [
        Outcome(
            id="1",
            correct=True,
            consistent=True,
            decided_by="evidence",
            tool_calls={"run_code": 2},
            prompt_tokens=10,
            completion_tokens=5,
            wall_s=1.0,
            model_s=0.5,
            **sure,
        ),
        Outcome(id="2", correct=False, consistent=False, decided_by="model", wall_s=3.0, model_s=2.0, **sure),
        Outcome(id="3", category="b", correct=False, valid=False, error=None, wall_s=2.0),
        Outcome(id="4", category="b", correct=None, valid=True, confidence=0.15, wall_s=2.0),
    ]
    m = metrics(outcomes)
    assert m.n == 4 and m.accuracy == pytest.approx(1 / 3) and m.consistency == 0.5 and m.valid_rate == 0.75
    assert m.decided_by_evidence == 0.25 and m.tool_usage == {"run_code": 0.5} and m.tokens_per_judgment == 3.75
    assert m.wall_s_per_judgment == 2.0 and m.wall_s_p50 == 2.0 and m.model_s_per_judgment == 0.625
    assert per_category(outcomes)["a"].accuracy == 0.5 and per_category(outcomes)["b"].accuracy == 0.0
    bins, ece = calibration(outcomes)
    assert [(b.n, b.accuracy) for b in bins] == [(2, 0.5)]  # confidence 0.95 twice: one right, one wrong
    assert ece == pytest.approx(0.45)


def test_eval_command_end_to_end(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = prefers("Cool")
    out = tmp_path / "evals"
    args = [
        "eval",
        "documents",
        "--model",
        fake_openai.url,
        "--limit",
        "4",
        "--store",
        str(tmp_path / "s.db"),
        "-o",
        str(out),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (folder,) = out.iterdir()
    report = json.loads((folder / "report.json").read_text())
    assert report["suite"] == "documents" and report["metrics"]["n"] == 4 and len(report["outcomes"]) == 4
    assert set(report["per_category"]) == {"documents: named", "documents: referring"}
    assert report["per_category"]["documents: named"]["accuracy"] == 1.0  # the checker finds named facts
    for plot in ("accuracy.png", "tools.png", "latency.png", "calibration.png"):
        assert (folder / plot).read_bytes()[:4] == b"\x89PNG"
    assert "| documents: named |" in (folder / "report.md").read_text()
    bench = CliRunner().invoke(
        app,
        [
            "eval",
            "judgebench",
            "--model",
            fake_openai.url,
            "--store",
            str(tmp_path / "s.db"),
            "-o",
            str(out),
            "--file",
            str(DATA / "judgebench.jsonl"),
        ],
    )
    assert bench.exit_code == 0, bench.output and "official score" in bench.output
    missing = CliRunner().invoke(app, ["eval", "judgebench", "--model", fake_openai.url])
    assert missing.exit_code == 2 and "--file" in missing.output
    unknown = CliRunner().invoke(app, ["eval", "nope"])
    assert unknown.exit_code == 2 and "known:" in unknown.output


def test_eval_all_rewrites_only_its_own_section_and_names_its_plot_after_the_report(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.responder = prefers("Cool")
    report = tmp_path / "EVALS.md"
    report.write_text("# Notes kept above\n\n## Training\n\nHand-written results that must survive.\n")
    args = ["eval", "all", "--judges", "llm", "--limit", "1", "--model", fake_openai.url]
    args += ["--store", str(tmp_path / "s.db"), "--report", str(report)]
    for _ in range(2):  # measured twice: the second replaces the first section instead of adding another
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    text = report.read_text()
    assert text.count("| llm | math |") == 1 and text.count("# Judges on the bundled eval sets") == 1
    assert text.endswith("## Training\n\nHand-written results that must survive.\n")
    assert "](docs/evals/evals-accuracy.png)" in text
    assert (tmp_path / "docs" / "evals" / "evals-accuracy.png").read_bytes()[:4] == b"\x89PNG"
    inside = tmp_path / "docs" / "evals" / "other-model.md"  # a report already in docs/evals keeps its plot beside it
    assert CliRunner().invoke(app, [*args[:-1], str(inside)]).exit_code == 0
    assert "](other-model-accuracy.png)" in inside.read_text()
    assert (inside.parent / "other-model-accuracy.png").exists() and not (inside.parent / "docs").exists()


def test_each_command_rewrites_only_the_section_it_owns() -> None:
    from judgegraph.evals._compare import with_section

    text = with_section("Hand-written.\n", "comparison v1\n")  # eval all's, prepended where it has none yet
    text = with_section(text, "trained v1\n", owner="train run")
    assert text.index("trained v1") < text.index("comparison v1") < text.index("Hand-written.")
    again = with_section(with_section(text, "trained v2\n", owner="train run"), "comparison v2\n")
    assert again == text.replace("v1", "v2")  # each replaced in place; the other section and the rest kept
    assert again.count("<!-- judgegraph train run: begin -->") == again.count("<!-- judgegraph eval all: end -->") == 1
