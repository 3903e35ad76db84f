"""IFEval's 25 instruction types, checked with the official checker's semantics (google-research
`instruction_following_eval`, Apache-2.0; the same code `if_verifiable` ships), strict and loose.

A request carries them as IFEval does (`instruction_id_list` + `kwargs`, read by `_shapes.py`) or as constraints
of kind `ifeval`. Where the official checker calls NLTK's punkt models (sentence counts, the word tokenizer of
capital-word counts), which cannot be downloaded here, it uses IFEval's own regex sentence splitter (from the
same official utilities) and a Treebank-style regex tokenizer; everything else is the official logic, rule for
rule. tests/test_ifeval.py runs the official code on the same responses and compares."""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import field_validator

from judgegraph.schema._constraint_base import Check, _BenchmarkInstruction, detect_language
from judgegraph.schema._ifeval_ids import IFEVAL_IDS

# ---------------------------------------------------------------- the official utilities (no NLTK data needed)

_ALPHABETS = "([A-Za-z])"
_PREFIXES = "(Mr|St|Mrs|Ms|Dr)[.]"
_SUFFIXES = "(Inc|Ltd|Jr|Sr|Co)"
_STARTERS = (
    r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s|That\s|This\s"
    r"|Wherever)"
)
_ACRONYMS = "([A-Z][.][A-Z][.](?:[A-Z][.])?)"
_WEBSITES = "[.](com|net|org|io|gov|edu|me)"
_DIGITS = "([0-9])"
_MULTIPLE_DOTS = r"\.{2,}"


def split_into_sentences(text: str) -> list[str]:
    """IFEval's own regex sentence splitter (`instructions_util.split_into_sentences`)."""
    text = " " + text + "  "
    text = text.replace("\n", " ")
    text = re.sub(_PREFIXES, "\\1<prd>", text)
    text = re.sub(_WEBSITES, "<prd>\\1", text)
    text = re.sub(_DIGITS + "[.]" + _DIGITS, "\\1<prd>\\2", text)
    text = re.sub(_MULTIPLE_DOTS, lambda m: "<prd>" * len(m.group(0)) + "<stop>", text)
    if "Ph.D" in text:
        text = text.replace("Ph.D.", "Ph<prd>D<prd>")
    text = re.sub(r"\s" + _ALPHABETS + "[.] ", " \\1<prd> ", text)
    text = re.sub(_ACRONYMS + " " + _STARTERS, "\\1<stop> \\2", text)
    text = re.sub(_ALPHABETS + "[.]" + _ALPHABETS + "[.]" + _ALPHABETS + "[.]", "\\1<prd>\\2<prd>\\3<prd>", text)
    text = re.sub(_ALPHABETS + "[.]" + _ALPHABETS + "[.]", "\\1<prd>\\2<prd>", text)
    text = re.sub(" " + _SUFFIXES + "[.] " + _STARTERS, " \\1<stop> \\2", text)
    text = re.sub(" " + _SUFFIXES + "[.]", " \\1<prd>", text)
    text = re.sub(" " + _ALPHABETS + "[.]", " \\1<prd>", text)
    text = text.replace(".”", "”.").replace('."', '".').replace('!"', '"!').replace('?"', '"?')
    text = text.replace(".", ".<stop>").replace("?", "?<stop>").replace("!", "!<stop>").replace("<prd>", ".")
    sentences = [s.strip() for s in text.split("<stop>")]
    if sentences and not sentences[-1]:
        sentences = sentences[:-1]
    return sentences


def count_words(text: str) -> int:
    """The official word count (NLTK's `RegexpTokenizer(r"\\w+")`, which needs no data)."""
    return len(re.findall(r"\w+", text))


_CONTRACTION = re.compile(r"(?i)^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$")


def treebank_words(text: str) -> list[str]:
    """Words as NLTK's `word_tokenize` splits them, without its punkt model: punctuation apart, hyphenated
    words whole, contractions split (`don't` -> `do`, `n't`)."""
    out: list[str] = []
    for token in re.findall(r"\w+(?:[-'’]\w+)*|[^\w\s]", text):
        m = _CONTRACTION.match(token.replace("’", "'"))
        out += [m.group(1), m.group(2)] if m else [token]
    return out


# ---------------------------------------------------------------- the 25 checks, by instruction id

Args = dict[str, Any]


def _compare(value: int, relation: str, n: int) -> bool:
    """IFEval's two relations: "less than" (strict) and "at least"."""
    return value < n if relation == "less than" else value >= n


def _paragraphs_ok(text: str, n: int) -> bool:
    paragraphs = re.split(r"\s?\*\*\*\s?", text)
    count = len(paragraphs)
    for k, p in enumerate(paragraphs):
        if not p.strip():
            if k in (0, len(paragraphs) - 1):
                count -= 1
            else:
                return False
    return count == n


def _nth_paragraph_first_word(text: str, a: Args) -> bool:
    paragraphs = re.split(r"\n\n", text)
    count = sum(1 for p in paragraphs if p.strip())
    nth = int(a["nth_paragraph"])
    if nth > count:
        return False
    paragraph = paragraphs[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = ""
    for letter in word:
        if letter in {".", ",", "?", "!", "'", '"'}:
            break
        first += letter.lower()
    return count == int(a["num_paragraphs"]) and first == str(a["first_word"]).lower()


def _highlights(text: str) -> int:
    single = [h for h in re.findall(r"\*[^\n\*]*\*", text) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n\*]*\*\*", text) if h.removeprefix("**").removesuffix("**").strip()]
    return len(single) + len(double)


def _postscript(text: str, marker: str) -> bool:
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + marker.lower() + r".*$"
    return bool(re.findall(pattern, text.lower(), flags=re.MULTILINE))


def _json(text: str) -> bool:
    body = text.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        body = body.removeprefix(prefix)
    try:
        json.loads(body.removesuffix("```").strip())
    except ValueError:
        return False
    return True


def _title(text: str) -> bool:
    return any(x.lstrip("<").rstrip(">").strip() for x in re.findall(r"<<[^\n]+>>", text))


def _two_responses(text: str) -> bool:
    parts = text.split("******")
    valid = []
    for k, part in enumerate(parts):
        if not part.strip():
            if k not in (0, len(parts) - 1):
                return False
        else:
            valid.append(part)
    return len(valid) == 2 and valid[0].strip() != valid[1].strip()


def _all_case(text: str, upper: bool) -> bool:
    if not (text.isupper() if upper else text.islower()):
        return False
    language = detect_language(text)
    return language is None or language == "en"  # the official checker counts an unreadable language as followed


CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")

IFEVAL_CHECKS: dict[str, Callable[[str, Args], bool]] = {
    "keywords:existence": lambda t, a: all(re.search(k, t, flags=re.IGNORECASE) for k in a["keywords"]),
    "keywords:frequency": lambda t, a: _compare(
        len(re.findall(str(a["keyword"]).strip(), t, flags=re.IGNORECASE)), a["relation"], int(a["frequency"])
    ),
    "keywords:forbidden_words": lambda t, a: (
        not any(re.search(r"\b" + w + r"\b", t, flags=re.IGNORECASE) for w in a["forbidden_words"])
    ),
    "keywords:letter_frequency": lambda t, a: _compare(
        collections.Counter(t.lower())[str(a["letter"]).strip().lower()], a["let_relation"], int(a["let_frequency"])
    ),
    "language:response_language": lambda t, a: (lang := detect_language(t)) is None or lang == a["language"],
    "length_constraints:number_sentences": lambda t, a: _compare(
        len(split_into_sentences(t)), a["relation"], int(a["num_sentences"])
    ),
    "length_constraints:number_paragraphs": lambda t, a: _paragraphs_ok(t, int(a["num_paragraphs"])),
    "length_constraints:number_words": lambda t, a: _compare(count_words(t), a["relation"], int(a["num_words"])),
    "length_constraints:nth_paragraph_first_word": _nth_paragraph_first_word,
    "detectable_content:number_placeholders": lambda t, a: len(re.findall(r"\[.*?\]", t)) >= int(a["num_placeholders"]),
    "detectable_content:postscript": lambda t, a: _postscript(t, str(a["postscript_marker"])),
    "detectable_format:number_bullet_lists": lambda t, a: (
        len(re.findall(r"^\s*\*[^\*].*$", t, flags=re.MULTILINE)) + len(re.findall(r"^\s*-.*$", t, flags=re.MULTILINE))
        == int(a["num_bullets"])
    ),
    "detectable_format:constrained_response": lambda t, a: any(o in t.strip() for o in CONSTRAINED_RESPONSES),
    "detectable_format:number_highlighted_sections": lambda t, a: _highlights(t) >= int(a["num_highlights"]),
    "detectable_format:multiple_sections": lambda t, a: (
        len(re.split(r"\s?" + str(a["section_spliter"]).strip() + r"\s?\d+\s?", t)) - 1 >= int(a["num_sections"])
    ),
    "detectable_format:json_format": lambda t, a: _json(t),
    "detectable_format:title": lambda t, a: any(
        x.lstrip("<").rstrip(">").strip() for x in re.findall(r"<<[^\n]+>>", t)
    ),
    "combination:two_responses": lambda t, a: _two_responses(t),
    "combination:repeat_prompt": lambda t, a: t.strip().lower().startswith(str(a["prompt_to_repeat"]).strip().lower()),
    "startend:end_checker": lambda t, a: t.strip().strip('"').lower().endswith(str(a["end_phrase"]).strip().lower()),
    "change_case:capital_word_frequency": lambda t, a: _compare(
        sum(1 for w in treebank_words(t) if w.isupper()), a["capital_relation"], int(a["capital_frequency"])
    ),
    "change_case:english_capital": lambda t, a: _all_case(t, upper=True),
    "change_case:english_lowercase": lambda t, a: _all_case(t, upper=False),
    "punctuation:no_comma": lambda t, a: not re.search(r"\,", t),
    "startend:quotation": lambda t, a: len(t.strip()) > 1 and t.strip()[0] == '"' and t.strip()[-1] == '"',
}
assert set(IFEVAL_CHECKS) == IFEVAL_IDS, "one check per IFEval id (_ifeval_ids.py)"


def loose_variants(text: str) -> list[str]:
    """The official loose evaluation's readings of a response: as is, without its first line, its last line or
    both, and each of those without asterisks (markdown)."""
    lines = text.split("\n")
    cut = ["\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    plain = text.replace("*", "")
    plain_lines = plain.split("\n")
    plain_cut = [
        "\n".join(plain_lines[1:]).strip(),
        "\n".join(plain_lines[:-1]).strip(),
        "\n".join(plain_lines[1:-1]).strip(),
    ]
    return [text, plain, *cut, *plain_cut]


class IFEvalInstruction(_BenchmarkInstruction):
    """One IFEval instruction (`instruction_id` with its `kwargs`), checked as the official checker does."""

    kind: Literal["ifeval"] = "ifeval"

    @field_validator("instruction_id")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in IFEVAL_CHECKS:
            raise ValueError(f"unknown IFEval instruction {value!r} (known: {', '.join(sorted(IFEVAL_CHECKS))})")
        return value

    def followed(self, text: str) -> bool:
        check = IFEVAL_CHECKS[self.instruction_id]
        readings = loose_variants(text) if self.loose else [text]
        return any(r.strip() and check(r, self.kwargs) for r in readings)

    def check(self, text: str) -> Check:
        try:
            ok = self.followed(text)
        except (KeyError, ValueError, TypeError, re.error) as e:
            return self._result(False, f"{self.instruction_id}: its kwargs cannot be checked ({e!r})")
        mode = "loose" if self.loose else "strict"
        return self._result(ok, f"{self.instruction_id} ({mode}): {'followed' if ok else 'not followed'}")
