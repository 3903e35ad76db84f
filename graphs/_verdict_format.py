"""What the model must answer, as JSON schemas, and the defensive parser of what it actually answered."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph.errors import VerdictParseError
from judgegraph.schema import integer_range

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LETTERS: tuple[str, ...] = (*_ALPHABET, *(a + b for a in _ALPHABET for b in _ALPHABET))
"""How the model sees candidates, by position: A..Z, then AA..ZZ (a group of 64 rollouts has more than 26)."""
RATIONALE_CHARS = 400

VerdictFormat = Literal["pairwise", "scores", "steps"]


class ModelRuling(BaseModel):
    """The model's ruling, parsed and validated."""

    model_config = ConfigDict(extra="forbid")

    winner: int | None = None
    """Pairwise: the winner's index, None for a tie."""
    scores: list[float] | None = None
    """Scores format: one score per candidate in [0, 1]."""
    step_scores: list[float] | None = None
    """Steps format: one score per reasoning step in [0, 1]."""
    confidence: float | None = Field(default=None, ge=0, le=1)
    rationale: str = ""


def verdict_format(mode: str) -> VerdictFormat:
    """Pairwise requests ask for a winner, step-level ones a score per step, the rest a score per candidate."""
    return "pairwise" if mode == "pairwise" else "steps" if mode == "steps" else "scores"


def verdict_schema(fmt: VerdictFormat, n_candidates: int) -> dict[str, Any]:
    """The JSON schema the backend constrains the model's reply to."""
    first: dict[str, Any]
    common: dict[str, Any] = {
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "rationale": {"type": "string", "maxLength": RATIONALE_CHARS},
    }
    if fmt == "pairwise":
        first = {"winner": {"type": "string", "enum": ["A", "B", "tie"]}}
        required = ["winner", "confidence", "rationale"]
    elif fmt == "steps":
        keys = [str(k + 1) for k in range(n_candidates)]
        first = {
            "steps": {
                "type": "object",
                "properties": {k: integer_range(1, 10) for k in keys},
                "required": keys,
                "additionalProperties": False,
            }
        }
        required = ["steps", "confidence", "rationale"]
    else:
        letters = LETTERS[:n_candidates]
        first = {
            "scores": {
                "type": "object",
                "properties": {c: integer_range(1, 10) for c in letters},
                "required": list(letters),
                "additionalProperties": False,
            }
        }
        required = ["scores", "confidence", "rationale"]
    return {"type": "object", "properties": {**first, **common}, "required": required, "additionalProperties": False}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen and seen[key] != value:
            raise VerdictParseError(f"key {key!r} appears twice with different values")
        seen[key] = value
    return seen


_LATEX_IN_JSON = re.compile(
    r"(?<!\\)((?:\\\\)*)\\(?=[bf][A-Za-z]"
    r"|t(?:imes|heta|ext|frac|an\b|au\b|o\b|riangle|ilde)"
    r"|n(?:eq\b|u\b|e\b|ot\b|abla|ewline|cdot)"
    r"|r(?:ight|ho\b|angle|floor|ceil|m\b)"
    r"|u(?:nderline|psilon))"
)
"""A backslash a model meant as LaTeX (`\\boxed`, `\\frac`, `\\times`, `\\neq`, `\\right`) where JSON reads an
escape (`\\b`, `\\f`, `\\t`, `\\n`, `\\r`, `\\u`): models write LaTeX in JSON strings with single backslashes."""


def latex_kept(blob: str) -> str:
    """A model's JSON with its LaTeX backslashes escaped, so `json` reads `\\boxed{x}` as written instead of a
    backspace and `oxed{x}` (which would corrupt an answer or a rationale)."""
    return _LATEX_IN_JSON.sub(lambda m: m.group(1) + "\\\\", blob)


def parse_verdict(text: str | None, fmt: VerdictFormat, n_candidates: int) -> ModelRuling:
    """Parse the model's reply; raise `VerdictParseError` saying what is wrong."""
    if not text or not text.strip():
        raise VerdictParseError("the reply is empty")
    blob = text.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", blob, re.DOTALL)
    if fence:
        blob = fence.group(1).strip()
    start = blob.find("{")
    if start < 0:
        raise VerdictParseError("the reply contains no JSON object")
    try:
        data, _ = json.JSONDecoder(object_pairs_hook=_no_duplicates).raw_decode(latex_kept(blob[start:]))
    except json.JSONDecodeError as e:
        raise VerdictParseError(f"the reply is not valid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise VerdictParseError("the reply is not a JSON object")
    confidence = data.get("confidence")
    if isinstance(confidence, int | float) and not isinstance(confidence, bool):
        confidence = min(1.0, max(0.0, float(confidence)))
    else:
        confidence = None
    rationale = data.get("rationale")
    rationale = rationale[:RATIONALE_CHARS] if isinstance(rationale, str) else ""
    try:
        if fmt == "pairwise":
            return ModelRuling(winner=_winner(data.get("winner")), confidence=confidence, rationale=rationale)
        if fmt == "steps":
            keys = [str(k + 1) for k in range(n_candidates)]
            steps = _scores(data.get("steps"), n_candidates, keys, "steps")
            return ModelRuling(step_scores=steps, confidence=confidence, rationale=rationale)
        return ModelRuling(scores=_scores(data.get("scores"), n_candidates), confidence=confidence, rationale=rationale)
    except ValidationError as e:
        raise VerdictParseError(str(e)) from None


def _winner(value: Any) -> int | None:
    if isinstance(value, str):
        v = value.strip().strip(".").upper()
        if v in ("A", "B"):
            return LETTERS.index(v)
        if v == "TIE":
            return None
    raise VerdictParseError(f'"winner" must be "A", "B" or "tie", got {value!r}')


def _scores(value: Any, n: int, keys: list[str] | None = None, what: str = "scores") -> list[float]:
    letters = keys or list(LETTERS[:n])
    if not isinstance(value, dict) or set(value) != set(letters):
        raise VerdictParseError(f'"{what}" must give exactly {", ".join(letters)} a score')
    out = []
    for c in letters:
        s = value[c]
        if isinstance(s, bool) or not isinstance(s, int | float) or not 1 <= s <= 10:
            raise VerdictParseError(f"the score of {c} must be a number from 1 to 10, got {s!r}")
        out.append((float(s) - 1) / 9)
    return out
