"""Claims and their checks (after MARCH): split a response into atomic claims, then check each claim against
evidence alone. The checker's input type (`ClaimCheckInput`) holds one claim and evidence passages and
nothing else, so by construction it never sees the response the claim came from.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal

import sympy
from pydantic import BaseModel, Field, StringConstraints

from judgegraph.schema import reply_schema
from judgegraph.tools.claims.retrieval import Passage

Verdict = Literal["supported", "contradicted", "not_found"]
Method = Literal["arithmetic", "numbers", "logic", "model", "none"]

_STOP = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being this that these those it
    its as than then so such there their they them he she his her we our you your i me my not no yes do does did has
    have had will would can could should may might must about into over under also just very more most less least
    """.split()
)


class Claim(BaseModel):
    """One atomic statement taken from a response."""

    id: int
    text: str


class ClaimCheckInput(BaseModel):
    """Everything the checker may see: one claim and the evidence. Never the response under test."""

    claim: Claim
    evidence: list[Passage]


class ClaimVerdict(BaseModel):
    """The checker's finding for one claim."""

    claim: Claim
    verdict: Verdict
    method: Method
    span: str = ""
    """The evidence text the verdict rests on."""
    source: str = ""
    """Where that evidence is: `document p.page`."""


# ---------------------------------------------------------------- proposer


_SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])(?<!\b(?:Mr|Ms|Dr|St|vs)\.)(?<!\bMrs\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?!(?<=\b(?:No|Nr)\.)\s+\d)\s+|\n+"
)
"""Where one sentence or line ends and the next begins, in responses and in evidence alike; not after a title
or an abbreviation (`Dr. Lee`, `e.g. this`, `No. 130`)."""


def split_claims(text: str, limit: int = 40) -> list[Claim]:
    """Deterministic proposer: sentences (and `;`-separated parts) that state something."""
    parts: list[str] = []
    for sentence in _SENTENCE_BREAK.split(text.strip()):
        parts.extend(p.strip() for p in sentence.split(";"))
    claims: list[Claim] = []
    for part in parts:
        if part.endswith("?") or len(_content_words(part)) + len(_numbers(part)) < 2:
            continue
        claims.append(Claim(id=len(claims), text=part.rstrip(".!")))
        if len(claims) >= limit:
            break
    return claims


class ModelClaims(BaseModel):
    """The claim extractor's reply (the schema it is decoded under and its parser)."""

    claims: list[Annotated[str, StringConstraints(max_length=300)]] = Field(max_length=20)


CLAIMS_SCHEMA = reply_schema(ModelClaims)


def parse_model_claims(text: str | None) -> list[Claim] | None:
    """Claims from a model reply `{"claims": [...]}`, or None when the reply is unusable."""
    try:
        items = ModelClaims.model_validate_json(text or "").claims
    except ValueError:
        return None
    claims = [Claim(id=i, text=c.strip()) for i, c in enumerate(x for x in items if x.strip())]
    return claims or None


# ---------------------------------------------------------------- deterministic checks


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z'-]+", text.lower()) if len(w) > 2 and w not in _STOP}


_NUM = re.compile(r"(?<![\w.])(?:[A-Z]{2,3}(?=\d))?(-?\d[\d,]*(?:\.\d+)?)\s*(%|percent\b|[a-zA-Z]+)?")
"""A number with its unit; a currency code written onto it (`RM40.00`, `USD5`) is not part of the word."""


def _numbers(text: str) -> list[tuple[float, str]]:
    out = []
    for value, unit in _NUM.findall(text):
        # A comma before exactly two final digits is a decimal comma ("9,00", as receipts and OCR write
        # it): a thousands separator always has three digits after it.
        number = value.replace(",", ".") if re.fullmatch(r"-?\d+,\d\d", value) else value.replace(",", "")
        try:
            v = float(number)
        except ValueError:
            continue
        u = (unit or "").lower()
        u = "%" if u in ("%", "percent") else u.rstrip("s") if len(u) > 3 else u
        out.append((v, u))
    return out


_REFERRING = re.compile(
    r"^(?:it|its|this|that|these|they|their|he|she|his|her|the (?:structure|building|place|site|project|work))\b",
    re.IGNORECASE,
)


def _sentences(passages: list[Passage]) -> list[tuple[str, Passage, set[str]]]:
    """Each sentence with the words it is about beyond its own: a sentence that refers back ("It opened in
    1889", "The structure is 330 metres tall") is about what its passage's first sentence names, or, on a page
    that starts by referring back, about what its document is (its id's words: `varn-bridge`). Without that, a
    page of one document would state facts about whatever another document's claim names."""
    out = []
    for p in passages:
        parts = [s for s in _SENTENCE_BREAK.split(p.text) if s.strip()]
        if not parts:
            continue
        topic = _content_words(parts[0])
        if _REFERRING.match(parts[0].strip()):
            topic = _content_words(re.sub(r"[-_./:]+", " ", p.document))
        out += [(s, p, topic if _REFERRING.match(s.strip()) else set()) for s in parts]
    return out


def _line_runs(passages: list[Passage]) -> list[tuple[str, Passage, set[str]]]:
    """Two and three lines together where layout rather than punctuation broke them (a sign's "SPEED / LIMIT /
    40" as OCR reads it, wrapped PDF text): read only where no single sentence is about the claim."""
    out = []
    for p in passages:
        parts = [s for s in _SENTENCE_BREAK.split(p.text) if s.strip()]
        for width in (2, 3):
            for i in range(len(parts) - width + 1):
                if not any(x.rstrip().endswith((".", "!", "?")) for x in parts[i : i + width - 1]):
                    out.append((" ".join(parts[i : i + width]), p, set[str]()))
    return out


_OPS = {
    "+": "+",
    "plus": "+",
    "-": "-",
    "minus": "-",
    "*": "*",
    "x": "*",
    "×": "*",
    "times": "*",
    "/": "/",
    "÷": "/",
    "divided by": "/",
}
_ARITH = re.compile(
    r"(-?\d+(?:\.\d+)?)\s*(\+|-|\*|x|×|/|÷|plus|minus|times|divided by)\s*(-?\d+(?:\.\d+)?)\s*"
    r"(?:=|is|equals|makes|gives)\s*(-?\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


def check_arithmetic(claim: Claim) -> ClaimVerdict | None:
    """`a op b = c` statements are true or false on their own (sympy, exact rationals)."""
    m = _ARITH.search(claim.text)
    if not m:
        return None
    a, op, b, c = m.groups()
    expr = f"({a}){_OPS[op.lower()]}({b})"
    try:
        value = sympy.nsimplify(sympy.sympify(expr), rational=True)
        ok = bool(sympy.simplify(value - sympy.nsimplify(c, rational=True)) == 0)
    except (sympy.SympifyError, ZeroDivisionError, TypeError):
        return None
    return ClaimVerdict(
        claim=claim,
        verdict="supported" if ok else "contradicted",
        method="arithmetic",
        span=f"{a} {op} {b} = {value}",
    )


def _names(text: str) -> set[str]:
    """The words of what a claim names (capitalised after its first word: `the Kerrow Museum`). A sentence that
    refers back is about its topic: it neither supports nor contradicts a claim naming something its topic does
    not (the Kerrow Library's page, "The structure is 860 metres long", against a claim about the museum)."""
    return _content_words(" ".join(re.findall(r"(?<!^)\b[A-Z][a-z]+", text.strip())))


def check_numbers(inp: ClaimCheckInput) -> ClaimVerdict | None:
    """A claim's numbers against the evidence sentence most about the same thing."""
    numbers = _numbers(inp.claim.text)
    words = _content_words(inp.claim.text)
    if not numbers or not words:
        return None
    need = min(
        2, len(words)
    )  # the best-overlapping sentences are taken; two shared words make one about the same thing
    names = _names(inp.claim.text)
    best: list[tuple[str, Passage]] = []
    for spans in (_sentences, _line_runs):
        top = 0
        for sentence, passage, about in spans(inp.evidence):
            overlap = len(words & (_content_words(sentence) | about))
            if overlap >= need and (not about or names <= about) and _numbers(sentence) and overlap >= top:
                best, top = ([] if overlap > top else best) + [(sentence, passage)], overlap
        if best:
            break
    else:
        return None

    def present(v: float, u: str, found: list[tuple[float, str]]) -> bool:
        return any(abs(v - fv) <= 1e-9 * max(1.0, abs(v)) and (not u or not fu or u == fu) for fv, fu in found)

    # Sentences equally about the claim (a receipt's "Sub Total", "Total" and "Total Qty" rows) are read
    # alike: the claim holds if one of them states its numbers, and is contradicted only if none does.
    for sentence, passage in best:
        found = _numbers(sentence)
        if all(present(v, u, found) for v, u in numbers):
            source = f"{passage.document} p.{passage.page}"
            return ClaimVerdict(
                claim=inp.claim, verdict="supported", method="numbers", span=sentence.strip(), source=source
            )
    sentence, passage = best[0]
    found = _numbers(sentence)
    source = f"{passage.document} p.{passage.page}"
    units = {u for _, u in numbers if u}
    comparable = [fv for fv, fu in found if not units or fu in units or not fu]
    if comparable:
        return ClaimVerdict(
            claim=inp.claim, verdict="contradicted", method="numbers", span=sentence.strip(), source=source
        )
    return None


_LABELLED = re.compile(r"(?<![\w.])([A-Za-z]+\.?|#)\s*(\d[\d,]*(?:\.\d+)?)(?![\d,.]*\d)")
"""A number named by the word just before it: `No. 130`, `Room 42`, `#7`, `Gate 12`."""
_NUMBER_WORDS = frozenset({"no.", "nr.", "#", "number", "num."})
"""Abbreviations of "number", which name the same label (`No.` is not the negation `no`: it has its period)."""


def _labelled(text: str) -> list[tuple[str, float]]:
    out = []
    for label, value in _LABELLED.findall(text):
        word = label.lower()
        if word in _NUMBER_WORDS:
            word = "no."
        elif word.rstrip(".") in _STOP or len(word.rstrip(".")) < 2:
            continue  # "of 45", "is 3": the word names nothing
        else:
            word = word.rstrip(".")
        out.append((word, float(value.replace(",", ""))))
    return out


def check_labelled(inp: ClaimCheckInput) -> ClaimVerdict | None:
    """A claim's labelled numbers (`The card says No. 130`) against evidence lines that carry the same label: a
    region read out of an image is often a label and its number alone, with no words to share with the claim.
    Contradicted only where the evidence gives that label one value, and not the claimed one."""
    claimed = _labelled(inp.claim.text)
    if not claimed:
        return None
    seen: dict[str, dict[float, tuple[str, Passage]]] = {}
    for passage in inp.evidence:
        for line in passage.text.splitlines():
            for label, value in _labelled(line):
                seen.setdefault(label, {}).setdefault(value, (line.strip(), passage))
    if not any(label in seen for label, _ in claimed):
        return None
    if all(value in seen.get(label, {}) for label, value in claimed):
        line, passage = seen[claimed[0][0]][claimed[0][1]]
        source = f"{passage.document} p.{passage.page}"
        return ClaimVerdict(claim=inp.claim, verdict="supported", method="numbers", span=line, source=source)
    for label, value in claimed:
        values = seen.get(label, {})
        if len(values) == 1 and value not in values:
            line, passage = next(iter(values.values()))
            source = f"{passage.document} p.{passage.page}"
            return ClaimVerdict(claim=inp.claim, verdict="contradicted", method="numbers", span=line, source=source)
    return None


def _atom(text: str) -> tuple[str, bool]:
    """A sentence as a propositional atom and its polarity: `the door is not locked` -> (`door is locked`, False)."""
    t = " " + re.sub(r"[^a-z0-9' ]+", " ", text.lower()) + " "
    t = re.sub(r"^ (yes|no|indeed|so|therefore|thus) ", " ", t)
    negated = bool(re.search(r" (not|never|isn't|aren't|doesn't|don't|won't|cannot|can't) ", t))
    t = re.sub(r" (isn't|is not) ", " is ", t)
    t = re.sub(r" (aren't|are not) ", " are ", t)
    t = re.sub(r" (doesn't|does not|don't|do not|never|not) ", " ", t)
    t = re.sub(r" (the|a|an|then) ", " ", t)
    return " ".join(t.split()), not negated


def check_logic(inp: ClaimCheckInput) -> ClaimVerdict | None:
    """Propositional entailment with z3: `If A, then B.` rules and plain facts in the evidence, against the claim."""
    import z3

    rules: list[tuple[tuple[str, bool], tuple[str, bool], str, Passage]] = []
    facts: list[tuple[tuple[str, bool], str, Passage]] = []
    for sentence, passage, _ in _sentences(inp.evidence):
        m = re.match(r"\s*if\s+(.+?),\s*(?:then\s+)?(.+?)[.!]?\s*$", sentence, re.IGNORECASE)
        if m:
            rules.append((_atom(m.group(1)), _atom(m.group(2)), sentence.strip(), passage))
        elif not sentence.strip().endswith("?"):
            facts.append((_atom(sentence), sentence.strip(), passage))
    if not rules:
        return None
    claim_atom, claim_pos = _atom(inp.claim.text)
    atoms = {a for (a, _), (b, _), _, _ in rules for a in (a, b)} | {a for (a, _), _, _ in facts}
    if claim_atom not in atoms:
        return None
    var = {a: z3.Bool(a) for a in atoms}

    def lit(a: str, pos: bool) -> z3.BoolRef:
        return var[a] if pos else z3.Not(var[a])

    solver = z3.Solver()
    for (a, pa), (b, pb), _, _ in rules:
        solver.add(z3.Implies(lit(a, pa), lit(b, pb)))
    for (a, pa), _, _ in facts:
        solver.add(lit(a, pa))
    claim = lit(claim_atom, claim_pos)
    span = " ".join(s for *_, s, _ in rules) + " " + " ".join(s for _, s, _ in facts)
    source = f"{inp.evidence[0].document} p.{inp.evidence[0].page}" if inp.evidence else ""
    for verdict, probe in (("supported", z3.Not(claim)), ("contradicted", claim)):
        solver.push()
        solver.add(probe)
        unsat = solver.check() == z3.unsat
        solver.pop()
        if unsat:
            return ClaimVerdict(
                claim=inp.claim, verdict=verdict, method="logic", span=span.strip()[:500], source=source
            )
    return None


# ---------------------------------------------------------------- the checker

ModelJudge = Callable[[ClaimCheckInput], Awaitable[ClaimVerdict | None]]


class ModelClaimCheck(BaseModel):
    """The model checker's reply on one claim (the schema it is decoded under and its parser)."""

    verdict: Literal["supported", "contradicted", "not_found"]
    span: str = Field(max_length=300)
    """The evidence text it relied on."""


CHECK_SCHEMA = reply_schema(ModelClaimCheck)


async def check_claim(inp: ClaimCheckInput, model_judge: ModelJudge | None = None) -> ClaimVerdict:
    """Deterministic checks first (arithmetic, numbers, logic); the model only where none decides."""
    for found in (check_arithmetic(inp.claim), check_numbers(inp), check_labelled(inp), check_logic(inp)):
        if found is not None:
            return found
    if model_judge is not None:
        found = await model_judge(inp)
        if found is not None:
            return found
    return ClaimVerdict(claim=inp.claim, verdict="not_found", method="none")


def model_check_messages(inp: ClaimCheckInput) -> list[dict[str, str]]:
    """The model checker's prompt: the claim and the evidence, nothing else."""
    evidence = "\n".join(f"[{p.document} p.{p.page}] {p.text}" for p in inp.evidence) or "(no evidence)"
    return [
        {"role": "system", "content": "You check one claim against evidence. Use only the evidence. Answer with JSON."},
        {
            "role": "user",
            "content": f"Evidence:\n{evidence}\n\nClaim: {inp.claim.text}\n\nIs the claim supported, contradicted, "
            'or not found in the evidence? Reply {"verdict": "supported" | "contradicted" | "not_found", '
            '"span": "the evidence text you relied on"}',
        },
    ]


class PropositionsResult(BaseModel):
    candidate: int
    proposer: Literal["rules", "model"]
    claims: list[ClaimVerdict] = Field(default_factory=list)
    supported: int = 0
    contradicted: int = 0
    not_found: int = 0
