"""`python -m judgegraph.evals.quality [--n N] [--judges a,b] [--model URL] [-o EVALS.md]`.

Judges the bundled verifiable pairs in both candidate orders and writes a Markdown table (accuracy,
consistency across orders, valid verdicts, per category) with the command that produced it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from judgegraph.evals._quality import build_pairs, evaluate, report


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20, help="pairs per category")
    parser.add_argument("--judges", default="evidence,llm")
    parser.add_argument("--model", default=None, help="OpenAI-compatible URL (default: the embedded model)")
    parser.add_argument("-o", "--output", type=Path, default=Path("EVALS.md"))
    args = parser.parse_args(argv)
    pairs = await build_pairs(args.n)
    outcomes = []
    for name in args.judges.split(","):
        outcomes += await evaluate(name, pairs, model_url=args.model)
    command = "python -m judgegraph.evals.quality " + " ".join(argv)
    args.output.write_text(report(outcomes, command.strip()))
    sys.stderr.write(f"wrote {args.output}\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
