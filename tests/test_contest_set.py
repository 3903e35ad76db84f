"""`contest-noref`: ICPC problems read from problemtools' and BAPCtools' source archives (fetched from PyPI on
first use), their LaTeX statements as the judge reads them, and the jury's verdicts against the samples."""

from __future__ import annotations

from typing import Any

import pytest

from judgegraph.evals._contest import answer, problems, statement, tex_to_text, without_comments
from judgegraph.sandboxes import Limits
from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.tools import ToolContext, ToolServices, call_tool
from judgegraph.tools.code.statement import read_statement


def test_a_kattis_statement_reads_as_its_page() -> None:
    tex = r"""\problemname{Sum It Up}
\newcommand{\maxn}{1000}
% a comment the page does not show
Given $n$ numbers, print their sum.

\begin{Input}
    The input consists of:
    \begin{itemize}
        \item One line with an integer $1 \le n \le \maxn$.
        \item One line with ``the numbers''.
    \end{itemize}
\end{Input}

\section*{Output}
Output \emph{one} integer within \timelimit{} seconds.

\nextsample{}
After the first sample.
\remainingsamples{}
After all of them.
"""
    title, body, after_first, after_all = tex_to_text(tex)
    assert title == "Sum It Up" and after_first == "After the first sample." and after_all == "After all of them."
    assert "comment" not in body and r"\maxn" not in body and "$1 \\le n \\le 1000$" in body
    assert "\nInput\n" in body and "\nOutput\n" in body and '- One line with "the numbers".' in body
    assert "Output one integer within the time limit seconds." in body


def test_submissions_lose_the_comments_that_name_their_verdict() -> None:
    c = "/*\n * Incorrect solution (uses 32-bit ints)\n */\n#include <cstdio>\n// WRONG\nint main(){return 0;}\n"
    assert without_comments(c, "cpp") == "#include <cstdio>\nint main(){return 0;}\n"
    py = "#!/usr/bin/env python3\n# This should give WRONG-ANSWER\nprint(int(input()) + 1)\n"
    assert without_comments(py, "python") == "print(int(input()) + 1)\n"
    assert without_comments("print 'hello'\n", "python") is None  # Python 2: not a language the sandbox runs


async def _run(services: ToolServices, prompt: str, response: str) -> dict[str, Any]:
    request = JudgeRequest.model_validate({"id": "t", "prompt": prompt, "candidates": [response], "mode": "pointwise"})
    result = await call_tool(
        ToolCall(name="run_examples", arguments={"candidate": 0}),
        ToolContext(request=request, services=services),
    )
    assert result.ok and result.data is not None, result.text
    return result.data


@pytest.mark.docker
async def test_the_samples_never_rule_against_an_accepted_submission() -> None:
    """Every problem with samples, in both layouts the set shows them, every accepted submission (C, C++, Java,
    Python...) on the Docker sandbox: none fails a sample the reader takes as deciding. Rejected submissions
    that fail one are what decides the set's pairs; most do (runtime errors, wrong output, time limits)."""
    services = ToolServices(sandbox="docker", sandbox_pool_size=2, limits=Limits())
    found = problems()
    assert {"problemtools/different", "bapctools/identity", "bapctools/hello"} <= {p.name for p in found}
    failed, rejected_failing, rejected = [], 0, 0
    try:
        for i, p in enumerate(found):
            if not p.samples:
                continue
            prompt = statement(p, i % 2)
            assert read_statement(prompt).style == "stdin"
            for k, s in enumerate(p.accepted):
                data = await _run(services, prompt, answer(s, k))
                if data["failed"] or data["load_error"]:
                    failed.append(f"{s.path}: {data}")
            for k, s in enumerate(p.rejected):
                data = await _run(services, prompt, answer(s, k))
                rejected += 1
                rejected_failing += bool(data["failed"] or data["load_error"])
    finally:
        await services.aclose()
    assert failed == []
    assert rejected >= 25 and rejected_failing >= rejected * 0.75
