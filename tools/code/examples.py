"""A statement's examples against a candidate's code: what an example calls in it (a function, a method of its
class, or, for an unnamed example, the one function that takes its arguments) and how the candidate did on it,
compared as the statement's judge compares."""

from __future__ import annotations

import ast
from typing import Literal

from judgegraph.tools.code.observe import Observed, missing_module
from judgegraph.tools.code.outcomes import compare_outputs, compare_values
from judgegraph.tools.code.statement import Example, Statement, without_order

SHOWN = 300
"""Characters of an input, an expected value or an output quoted in a result."""

Outcome = Literal["passed", "failed", "unsure", "error", "timeout", "not_run"]


def _defined(code: str) -> tuple[set[str], dict[str, str]]:
    """The code's top-level functions, and each method name -> its class (public methods only)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return set(), {}
    functions: set[str] = set()
    methods: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    methods.setdefault(item.name, node.name)
    return functions, methods


def resolve(name: str, code: str) -> str | None:
    """How to call `name` in `code`: the function, or `Class.name` for a method of that name; None if neither."""
    functions, methods = _defined(code)
    if name in functions:
        return name
    return f"{methods[name]}.{name}" if name in methods else None


def call_target(statement: Statement, example: Example, code: str, entry: str | None) -> str | None:
    """What an example calls in this candidate's code: the function the example names (or a method of that
    name, on a fresh instance of its class); for unnamed examples (LeetCode's), the starter's method, the
    candidate's `Solution` method, else its function under test."""
    named = example.function or statement.method
    if named is not None:
        return resolve(named, code) or (named if example.function else None)
    return _unnamed_target(example, code, entry)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _takes(fn: Function, example: Example, method: bool, by_name: bool) -> bool:
    """Whether `fn` takes the example's arguments: by their names (as the example writes them), or by count."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args][1 if method else 0 :]
    if by_name:
        return params == list(example.names)
    required = len(params) - len(fn.args.defaults)
    return required <= len(example.args) and (fn.args.vararg is not None or len(example.args) <= len(params))


def _calls(fn: Function) -> set[str]:
    """The names `fn` calls (`f(...)`, `self.f(...)`), itself left out: recursion does not make a helper."""
    names = {
        c.func.id if isinstance(c.func, ast.Name) else c.func.attr
        for c in ast.walk(fn)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name | ast.Attribute)
    }
    return names - {fn.name}


def _unnamed_target(example: Example, code: str, entry: str | None) -> str | None:
    """The function an unnamed example (LeetCode's `Input: nums = [1], k = 2`, with no starter to name it) calls
    in this candidate: its `Solution` class's methods (else its top-level functions) that take the example's
    arguments, less those the others call (helpers); None where that leaves no single one: which it calls is then
    unclear, and an example run on a guess could rule a right answer wrong."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return entry
    solution = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Solution"), None)
    body = solution.body if solution is not None else tree.body
    functions = [n for n in body if isinstance(n, Function) and not n.name.startswith("_")]
    method = solution is not None
    fits = [f for f in functions if example.names and _takes(f, example, method, by_name=True)]
    fits = fits or [f for f in functions if _takes(f, example, method, by_name=False)]
    called = set().union(*(_calls(f) for f in functions))
    entries = [f.name for f in fits if f.name not in called] or [f.name for f in fits]
    if len(entries) == 1:
        return f"Solution.{entries[0]}" if method else entries[0]
    if solution is None and entry in entries:
        return entry
    return None


def shown_text(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def example_outcome(
    example: Example, observed: Observed, tolerance: float | None, any_case: bool = False
) -> tuple[Outcome, str]:
    """How a candidate did on one example (as the statement's judge compares), and what it gave."""
    if observed.status == "error" and missing_module(observed.message):
        return "unsure", shown_text(observed.message)
    if observed.status != "ok":
        return observed.status, shown_text(observed.message)
    if observed.printed:
        return compare_outputs(example.expected_text, observed.output, tolerance, any_case), shown_text(observed.output)
    value = observed.value if example.expected is None else observed.answer  # an expected None is returned
    if example.order == "free":
        return compare_values(without_order(example.expected), without_order(value), tolerance), shown_text(repr(value))
    outcome = compare_values(example.expected, value, tolerance)
    reordered = example.order == "unstated" and outcome == "failed"  # the same items in another order?
    if reordered and compare_values(without_order(example.expected), without_order(value), tolerance) == "passed":
        outcome = "unsure"
    return outcome, shown_text(repr(value))
