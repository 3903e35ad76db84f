"""An example judgegraph plugin: `count_words` (a tool that decides) and two judges that use it: `concise` (the
agentic judge: its model calls the tool) and `concise_rules` (evidence first: the tool's plan and criterion decide
a stated word limit with no model at all).

Everything reaches judgegraph through the entry points in this package's pyproject.toml: nothing in judgegraph
names them. A deciding tool needs three things beside its function, all from `judgegraph.tools`:
- a plan (`plan=`): `request -> [ToolCall]`, the calls to make on a request before any model is asked
  (`each_candidate` makes one per candidate); an empty list where the tool has nothing to check;
- a criterion (`criterion=`): `ToolResult -> CriterionResult | None`, its result read as pass or fail of one
  candidate (`@reads(Model)` writes it over the result's typed data, a failed call giving none;
  `candidate_criterion` makes the criterion); None where the result decides nothing;
- a typed result (`ToolOutput.data`) that says which candidate it is about.
"""

from __future__ import annotations

import importlib.resources
import re

from pydantic import BaseModel, Field

from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool

CONCISE = importlib.resources.files(__name__) / "concise"
"""The `concise` judge's folder (judge.toml and prompts), which the `judgegraph.judges` entry point names."""
CONCISE_RULES = importlib.resources.files(__name__) / "concise_rules"
"""The `concise_rules` judge's folder: evidence first, so `count_words`'s plan and criterion decide."""

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_LIMIT = re.compile(
    r"\b(at most|no more than|up to|not (?:to )?exceed(?:ing)?|fewer than|less than|under)\s+(\d+)\s+words?\b",
    re.IGNORECASE,
)


def word_limit(prompt: str) -> int | None:
    """The word limit a task states ("in at most 5 words", "fewer than 50 words"), or None."""
    found = _LIMIT.search(prompt)
    if found is None:
        return None
    n = int(found.group(2))
    return n - 1 if found.group(1).lower() in ("fewer than", "less than", "under") else n


class CountWordsArgs(BaseModel):
    candidate: int = Field(ge=0, description="Which candidate's text to count (0-based).")
    max_words: int | None = Field(default=None, ge=1, description="A word limit to check the count against.")


class WordCount(BaseModel):
    candidate: int
    words: int
    within_limit: bool | None
    """None when no limit was given."""


def plan_count_words(request: JudgeRequest) -> list[ToolCall]:
    """Where the task states a word limit: count every candidate's words against it."""
    limit = word_limit(request.prompt)
    if limit is None:
        return []
    calls = each_candidate("count_words", request, f"the task asks for at most {limit} words")
    return [c.model_copy(update={"arguments": {**c.arguments, "max_words": limit}}) for c in calls]


@reads(WordCount)
def count_words_criterion(result: ToolResult, data: WordCount) -> CriterionResult | None:
    """A count against a limit decides: within it passes, over it fails. A count without a limit decides nothing."""
    if data.within_limit is None:
        return None
    return candidate_criterion(result, "within_word_limit", data.candidate, data.within_limit, float(data.within_limit))


@tool("count_words", plan=plan_count_words, criterion=count_words_criterion)
async def count_words(args: CountWordsArgs, ctx: ToolContext) -> ToolOutput:
    """Count the words of a candidate's response (letters and digits, with inner apostrophes and hyphens), and
    say whether it keeps to a word limit when one is given."""
    content = ctx.candidate(args.candidate)  # an index with no candidate fails with the reason
    n = len(_WORD.findall(content))
    within = None if args.max_words is None else n <= args.max_words
    limit = "" if args.max_words is None else f" ({'within' if within else 'over'} the limit of {args.max_words})"
    data = WordCount(candidate=args.candidate, words=n, within_limit=within)
    return ToolOutput(text=f"candidate {args.candidate} has {n} words{limit}", data=data)
