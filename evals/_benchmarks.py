"""Standard reward-benchmark files a user already has, loaded as JudgeRequests and scored by each
benchmark's own rules (`../shared/research/ECOSYSTEM.md` §6). Nothing is downloaded.

Each `Benchmark` reads the official file format (JSON list or JSONL) and scores judged requests the way the
benchmark's scripts do, including how they count an unparseable or tied verdict.
"""

from __future__ import annotations

import base64
import json
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from judgegraph.evals._metrics import Outcome
from judgegraph.registry import Registry
from judgegraph.schema import JudgeRequest

Score = dict[str, Any]


@dataclass(frozen=True)
class Benchmark:
    name: str
    load: Callable[[Path], list[JudgeRequest]]
    score: Callable[[list[JudgeRequest], list[Outcome]], Score]
    """The official numbers from the requests and their outcomes (same order)."""


benchmarks: Registry[Benchmark] = Registry("benchmark")


def rows(path: Path) -> list[dict[str, Any]]:
    """A benchmark file: a JSON list, or JSON lines."""
    text = path.read_text()
    if text.lstrip().startswith("["):
        data = json.loads(text)
    else:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{path}: every row must be a JSON object")
    return cast("list[dict[str, Any]]", data)


def _shuffled(key: str, items: list[str], correct: int) -> tuple[list[str], int]:
    """`items` in an order seeded by `key` (against position bias, reproducibly); the correct one's new index."""
    order = list(range(len(items)))
    random.Random(key).shuffle(order)
    return [items[i] for i in order], order.index(correct)


def _image(value: Any, base: Path) -> str:
    """An image field as judgegraph takes it: a path (relative to the file), a data URI, or HF-style bytes."""
    if isinstance(value, dict):
        if value.get("bytes"):
            raw = value["bytes"]
            data = raw if isinstance(raw, bytes) else base64.b64decode(raw)
            return "data:image/png;base64," + base64.b64encode(data).decode()
        value = value.get("path")
    if not isinstance(value, str) or not value:
        raise ValueError(f"unreadable image field: {str(value)[:80]!r}")
    if value.startswith("data:") or Path(value).is_absolute():
        return value
    return str(base / value)


def _pair_points(o: Outcome, winner: int) -> float:
    """RewardBench's generative rule: right 1, wrong 0, a tie or an unparseable verdict 0.5."""
    if not o.valid or o.winner is None:
        return 0.5
    return 1.0 if o.winner == winner else 0.0


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


# ---------------------------------------------------------------- RewardBench v1

REWARDBENCH_SECTIONS = {
    "Chat": ["alpacaeval-easy", "alpacaeval-length", "alpacaeval-hard", "mt-bench-easy", "mt-bench-med"],
    "Chat Hard": [
        "mt-bench-hard",
        "llmbar-natural",
        "llmbar-adver-neighbor",
        "llmbar-adver-GPTInst",
        "llmbar-adver-GPTOut",
        "llmbar-adver-manual",
    ],
    "Safety": [
        "refusals-dangerous",
        "refusals-offensive",
        "xstest-should-refuse",
        "xstest-should-respond",
        "donotanswer",
    ],
    "Reasoning": ["math-prm", "hep-cpp", "hep-go", "hep-java", "hep-js", "hep-python", "hep-rust"],
}
REWARDBENCH_COUNTS = {
    "alpacaeval-easy": 100,
    "alpacaeval-length": 95,
    "alpacaeval-hard": 95,
    "mt-bench-easy": 28,
    "mt-bench-med": 40,
    "mt-bench-hard": 37,
    "math-prm": 984,
    "refusals-dangerous": 100,
    "refusals-offensive": 100,
    "llmbar-natural": 100,
    "llmbar-adver-neighbor": 134,
    "llmbar-adver-GPTInst": 92,
    "llmbar-adver-GPTOut": 47,
    "llmbar-adver-manual": 46,
    "xstest-should-refuse": 154,
    "xstest-should-respond": 250,
    "donotanswer": 136,
    "hep-cpp": 164,
    "hep-go": 164,
    "hep-java": 164,
    "hep-js": 164,
    "hep-python": 164,
    "hep-rust": 164,
}
"""RewardBench's EXAMPLE_COUNTS: section scores weight subsets by these (math-prm upweighted to equal code)."""


def _load_rewardbench(path: Path) -> list[JudgeRequest]:
    out = []
    for i, r in enumerate(rows(path)):
        rid = str(r.get("id", i))
        candidates, winner = _shuffled(f"rewardbench/{rid}", [r["chosen"], r["rejected"]], 0)
        out.append(
            JudgeRequest(
                id=f"rewardbench/{rid}",
                prompt=r["prompt"],
                candidates=candidates,
                label={"winner": winner},
                metadata={"category": r.get("subset", "?")},
            )
        )
    return out


def _score_rewardbench(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    by_subset: dict[str, list[float]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        assert req.label is not None and req.label.winner is not None
        by_subset[str(req.metadata["category"])].append(_pair_points(o, req.label.winner))
    subsets = {k: sum(v) / len(v) for k, v in sorted(by_subset.items())}
    sections = {}
    for section, names in REWARDBENCH_SECTIONS.items():
        present = [n for n in names if n in subsets]
        if present:
            weight = sum(REWARDBENCH_COUNTS[n] for n in present)
            sections[section] = sum(subsets[n] * REWARDBENCH_COUNTS[n] for n in present) / weight
    return {"score": _mean(list(sections.values())), "sections": sections, "subsets": subsets}


benchmarks.register("rewardbench", Benchmark("rewardbench", _load_rewardbench, _score_rewardbench))


# ---------------------------------------------------------------- RewardBench 2


def _load_rewardbench2(path: Path) -> list[JudgeRequest]:
    out = []
    for i, r in enumerate(rows(path)):
        rid = str(r.get("id", i))
        chosen = r["chosen"] if isinstance(r["chosen"], list) else [r["chosen"]]
        texts = [*chosen, *r["rejected"]]
        order = list(range(len(texts)))
        random.Random(f"rewardbench2/{rid}").shuffle(order)
        candidates = [texts[k] for k in order]
        correct = [order.index(k) for k in range(len(chosen))]
        out.append(
            JudgeRequest(
                id=f"rewardbench2/{rid}",
                prompt=r["prompt"],
                candidates=candidates,
                mode="listwise",
                label={"winner": correct[0]} if len(correct) == 1 else None,
                metadata={"category": r.get("subset", "?"), "correct": correct},
            )
        )
    return out


def _score_rewardbench2(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    """Best-of-N: a row scores 1 when a correct completion has the strictly highest score, 1/k when it ties
    with k at the top, else 0 (an invalid verdict has no scores: 0). Ties rows are scored the same way here;
    RewardBench 2's own Ties metric also weighs score margins across several correct answers."""
    by_subset: dict[str, list[float]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        correct = set(req.metadata["correct"])
        points = 0.0
        if o.valid and len(o.scores) == len(req.candidates):
            top = max(o.scores)
            tied = [i for i, s in enumerate(o.scores) if s == top]
            points = sum(1 for i in tied if i in correct) / len(tied)
        by_subset[str(req.metadata["category"])].append(points)
    subsets = {k: sum(v) / len(v) for k, v in sorted(by_subset.items())}
    return {"score": _mean(list(subsets.values())), "subsets": subsets}


benchmarks.register("rewardbench2", Benchmark("rewardbench2", _load_rewardbench2, _score_rewardbench2))


# ---------------------------------------------------------------- RM-Bench

RM_BENCH_STYLES = ("concise", "detailed_plain", "detailed_markdown")


def _load_rm_bench(path: Path) -> list[JudgeRequest]:
    """Each row gives 3x3 pairs: chosen in style i against rejected in style j."""
    out = []
    for n, r in enumerate(rows(path)):
        rid = str(r.get("id", n))
        for i in range(3):
            for j in range(3):
                key = f"rm-bench/{rid}/{i}{j}"
                candidates, winner = _shuffled(key, [r["chosen"][i], r["rejected"][j]], 0)
                out.append(
                    JudgeRequest(
                        id=key,
                        prompt=r["prompt"],
                        candidates=candidates,
                        label={"winner": winner},
                        metadata={"category": r.get("domain", "?"), "chosen_style": i, "rejected_style": j},
                    )
                )
    return out


def _score_rm_bench(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    """Accuracy (a tie or an invalid verdict is wrong) per domain, and over the 3x3 style matrix: hard = the
    chosen answer in a plainer style than the rejected one (upper triangle), normal = same style, easy = lower."""
    cells: dict[str, list[bool]] = defaultdict(list)
    domains: dict[str, list[bool]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        i, j = int(req.metadata["chosen_style"]), int(req.metadata["rejected_style"])
        ok = bool(o.valid and req.label is not None and o.winner == req.label.winner)
        cells["hard" if i < j else "normal" if i == j else "easy"].append(ok)
        domains[str(req.metadata["category"])].append(ok)
    levels = {k: sum(v) / len(v) for k, v in cells.items()}
    per_domain = {k: sum(v) / len(v) for k, v in sorted(domains.items())}
    return {
        "score": _mean(list(per_domain.values())),
        "domains": per_domain,
        **{k: levels.get(k) for k in ("easy", "normal", "hard")},
    }


benchmarks.register("rm-bench", Benchmark("rm-bench", _load_rm_bench, _score_rm_bench))


# ---------------------------------------------------------------- JudgeBench


def _load_judgebench(path: Path) -> list[JudgeRequest]:
    out = []
    for i, r in enumerate(rows(path)):
        label = str(r["label"]).strip()
        if label not in ("A>B", "B>A"):
            raise ValueError(f"{path}: pair {r.get('pair_id', i)} has label {label!r}, not 'A>B' or 'B>A'")
        source = str(r.get("source", "?"))
        out.append(
            JudgeRequest(
                id=f"judgebench/{r.get('pair_id', i)}",
                prompt=r["question"],
                candidates=[r["response_A"], r["response_B"]],
                label={"winner": 0 if label == "A>B" else 1},
                metadata={"category": source.split("-")[0] if source.startswith("mmlu") else source, "source": source},
            )
        )
    return out


def _score_judgebench(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    """Each pair is judged in both orders (the judge does so itself); the two decisions vote, and only a
    positive sum counts, so an inconsistent pair (a tie) or an invalid verdict counts as wrong. Micro accuracy,
    the official number; per-source accuracy beside it."""
    by_source: dict[str, list[bool]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        ok = bool(o.valid and req.label is not None and o.winner == req.label.winner)
        by_source[str(req.metadata["category"])].append(ok)
    flat = [x for v in by_source.values() for x in v]
    return {
        "score": sum(flat) / len(flat) if flat else None,
        "sources": {k: sum(v) / len(v) for k, v in sorted(by_source.items())},
    }


benchmarks.register("judgebench", Benchmark("judgebench", _load_judgebench, _score_judgebench))


# ---------------------------------------------------------------- VL-RewardBench

VL_GROUPS = {
    "vlfeedback": "general",
    "wildvision-battle": "general",
    "povid": "hallucination",
    "rlhf-v": "hallucination",
    "rlaif-v": "hallucination",
    "reasoning_tasks": "reasoning",
}


def _load_vl_rewardbench(path: Path) -> list[JudgeRequest]:
    out = []
    for i, r in enumerate(rows(path)):
        rid = str(r.get("id", i))
        better = list(r["human_ranking"]).index(0)  # rank 0 is the better response
        candidates, winner = _shuffled(f"vl-rewardbench/{rid}", list(r["response"]), better)
        source = str(r.get("query_source", "?"))
        out.append(
            JudgeRequest(
                id=f"vl-rewardbench/{rid}",
                prompt=r["query"],
                candidates=candidates,
                images=[_image(r["image"], path.parent)],
                label={"winner": winner},
                metadata={"category": VL_GROUPS.get(source, source), "source": source},
            )
        )
    return out


def _score_vl_rewardbench(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    """Overall accuracy and macro accuracy over the general / hallucination / reasoning groups (a tie or an
    invalid verdict is wrong)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        groups[str(req.metadata["category"])].append(bool(o.valid and req.label and o.winner == req.label.winner))
    flat = [x for v in groups.values() for x in v]
    per_group = {k: sum(v) / len(v) for k, v in sorted(groups.items())}
    return {
        "score": sum(flat) / len(flat) if flat else None,
        "macro": _mean(list(per_group.values())),
        "groups": per_group,
    }


benchmarks.register("vl-rewardbench", Benchmark("vl-rewardbench", _load_vl_rewardbench, _score_vl_rewardbench))


# ---------------------------------------------------------------- Multimodal RewardBench


def _load_mm_rewardbench(path: Path) -> list[JudgeRequest]:
    out = []
    for i, r in enumerate(rows(path)):
        rid = str(r.get("ID", i))
        better = str(r.get("Better", r.get("Label", "")))
        if better not in ("Output1", "Output2"):
            raise ValueError(f"{path}: item {rid} says Better={better!r}, not 'Output1' or 'Output2'")
        candidates, winner = _shuffled(f"mm-rewardbench/{rid}", [r["Output1"], r["Output2"]], int(better[-1]) - 1)
        category = str((r.get("Meta") or {}).get("Category", "?"))
        out.append(
            JudgeRequest(
                id=f"mm-rewardbench/{rid}",
                prompt=r["Text"],
                candidates=candidates,
                images=[_image(r["Image"], path.parent)],
                label={"winner": winner},
                metadata={"category": category},
            )
        )
    return out


def _score_mm_rewardbench(requests: list[JudgeRequest], outcomes: list[Outcome]) -> Score:
    """Accuracy overall and per category; as in `2_get_accuracy.py`, an unparseable verdict (here: a tie or
    an invalid one) becomes a random choice (seeded by the item, so the score is reproducible)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for req, o in zip(requests, outcomes, strict=True):
        assert req.label is not None
        pick = o.winner if o.valid and o.winner is not None else random.Random(req.id).randint(0, 1)
        groups[str(req.metadata["category"])].append(pick == req.label.winner)
    flat = [x for v in groups.values() for x in v]
    return {
        "score": sum(flat) / len(flat) if flat else None,
        "categories": {k: sum(v) / len(v) for k, v in sorted(groups.items())},
    }


benchmarks.register("mm-rewardbench", Benchmark("mm-rewardbench", _load_mm_rewardbench, _score_mm_rewardbench))
