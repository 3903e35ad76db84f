"""An example judgegraph plugin: `count_words` (a tool) and `concise` (a judge that may use it).

Both reach judgegraph through the entry points in this package's pyproject.toml: nothing in judgegraph names them.
"""

from __future__ import annotations

import importlib.resources
import re

from pydantic import BaseModel, Field

from judgegraph.tools import ToolContext, ToolOutput, tool

CONCISE = importlib.resources.files(__name__) / "concise"
"""The `concise` judge's folder (judge.toml and prompts), which the `judgegraph.judges` entry point names."""

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


class CountWordsArgs(BaseModel):
    candidate: int = Field(ge=0, description="Which candidate's text to count (0-based).")
    max_words: int | None = Field(default=None, ge=1, description="A word limit to check the count against.")


class WordCount(BaseModel):
    words: int
    within_limit: bool | None
    """None when no limit was given."""


@tool("count_words")
async def count_words(args: CountWordsArgs, ctx: ToolContext) -> ToolOutput:
    """Count the words of a candidate's response (letters and digits, with inner apostrophes and hyphens), and
    say whether it keeps to a word limit when one is given."""
    if args.candidate >= len(ctx.request.candidates):
        raise ValueError(f"there is no candidate {args.candidate}; the request has {len(ctx.request.candidates)}")
    n = len(_WORD.findall(ctx.request.candidates[args.candidate].content))
    within = None if args.max_words is None else n <= args.max_words
    limit = "" if args.max_words is None else f" ({'within' if within else 'over'} the limit of {args.max_words})"
    return ToolOutput(
        text=f"candidate {args.candidate} has {n} words{limit}", data=WordCount(words=n, within_limit=within)
    )
