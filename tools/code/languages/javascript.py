"""JavaScript (Node): run as a module; test programs run from the record runner with their own `require`;
LeetCode-style calls of a function or a `Solution` method, values as JSON both ways."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import RUNTIME_LIMITS, ProgramLanguage, runner_source, split_params

JS_GLOBALS = frozenset(
    """
    require assert console JSON Object Array Number String Math process Promise Error TypeError RangeError Map Set
    WeakMap Symbol Reflect Proxy Boolean BigInt Date RegExp Function parseInt parseFloat isNaN isFinite structuredClone
    setTimeout setImmediate queueMicrotask globalThis global Buffer
    """.split()
)
"""The globals and modules a Node test uses (`require('node:assert')`, `JSON.stringify`, `Object.is`)."""
_JS_TAMPERS = re.compile(
    r"\b(\w+)(?:\s*\([^()]*\))?(?:\s*\.\s*\w+|\s*\[[^\]]*\])+\s*=(?![=>])"
    r"|\b(?:Object|Reflect)\s*\.\s*(?:defineProperty|defineProperties|assign|setPrototypeOf)\s*\(\s*(\w+)"
)
"""An assignment into a global or a module (`Array.prototype.includes = ...`, `require('node:assert').equal =`)."""


class JavaScript(ProgramLanguage):
    runtime_names = JS_GLOBALS
    signature = re.compile(r"\b(\w+)\s*(?:=\s*(?:async\s*)?(?:function\s*)?)?\(([^()]*)\)\s*(?:=>|(?:const\s*)?\{)")
    """A function, a method, or one assigned (`const twoSum = (nums, target) => ...`, with or without a block)."""
    declares = re.compile(r"(?:\bfunction\s*\*?\s*|\bclass\s+|\b(?:var|let|const)\s+|\bglobal(?:This)?\s*\.\s*)(\w+)")

    def redefinition(self, name: str) -> str:
        return f"function {name}() {{}}"

    def call_arity(self, params: str) -> int | None:
        """A rest parameter (`...more`) takes what is left: the count is of those before it."""
        return len([p for p in split_params(params) if not p.strip().startswith("...")])

    def takes_over(self, code: str, beside: str) -> list[str]:
        """Also any assignment into the runtime's globals and modules: a test reaches them through its own names
        (`[].includes`, `assert.strictEqual`), so an answer that rewrites one rewrites the test's check."""
        taken = set(super().takes_over(code, beside))
        for m in _JS_TAMPERS.finditer(code):
            name = m.group(1) or m.group(2)
            if name in JS_GLOBALS and name not in ("module", "exports"):
                taken.add(name)
        return sorted(taken)

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _javascript(code, name, calls)

    def call_step(self, runner: str) -> Step:
        """Node runs the runner's source as it is, once per call, so the source (and its token) stays on disk:
        the report is written with the functions as they were before the answer ran, under a name the answer
        cannot know. An answer that reads the runner's file back can find the token, and an answer can replace
        the builtins the runner checks its value with; neither gains anything, since a report can then only give
        a value (which the answer could have returned) or say its value is not data, which fails the example."""
        return replace(self.step(runner, None), record=True)

    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.js": code}, None, ["node", "--max-old-space-size=256", "main.js"])
        # The runner reads both, deletes itself, and runs them as one module with the test's own `require`.
        sources = {"solution.js": code, "test.js": test, "record_runner.js": runner_source("record_runner.js")}
        return Step(sources, None, ["node", "--max-old-space-size=256", "record_runner.js"], record=True)


_JS_REPORT = sandbox_source("call_report.js")
"""Before the answer's code (which runs first, and may replace `JSON.stringify` or `console.log`): the report line,
started by the build's token, written with the functions as they were, under a name the answer cannot know."""


def _javascript(code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
    if not re.search(rf"\b{re.escape(name)}\s*(?:=|\()", code):
        return None
    try:
        cases = json.dumps([list(args) for args in calls], allow_nan=False)
    except (TypeError, ValueError):
        return None
    target = (
        f"(typeof {name} === 'function' ? {name} : (() => {{ const s = new Solution(); return s.{name}.bind(s); }})())"
    )
    return (
        f"{_JS_REPORT}\n{code}\n"
        ";(() => {\n"
        "  const jgCase = parseInt(require('fs').readFileSync(0, 'utf8'));\n"
        f"  const jgArgs = {cases}[jgCase];\n"
        f"  const jgR = {target}(...jgArgs);\n"
        "  const first = jgArgs.length ? jgArgs[0] : null;\n"
        "  const plain = (v) => v === null || v === undefined || ['number', 'string', 'boolean'].includes(typeof v)\n"
        "    || (Array.isArray(v) && v.every(plain))\n"
        "    || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype\n"
        "        && Object.values(v).every(plain));\n"
        "  if (!plain(jgR)) { __JG_KEY___report({value: null, unprintable: String(jgR)}); return; }\n"
        "  // JSON has no non-finite numbers; Python's reader takes these tokens (as Python answers' reals travel)\n"
        "  const real = (k, v) => typeof v === 'number' && !Number.isFinite(v) ? '\\u0000jg:' + v : v;\n"
        "  __JG_KEY___report({value: jgR === undefined ? null : jgR, first}, real);\n"
        "})();\n"
    )


languages.register(
    "javascript",
    JavaScript(
        "javascript",
        ("javascript", "js", "node", "nodejs", "mjs"),
        re.compile(r"\s*(const\s|let\s|var\s|function\s|class\s|import\s|require\(|['\"]use strict|process\.)"),
        re.compile(r"\bmain\s*\("),
        RUNTIME_LIMITS,
        1024,
        {},
        startup_s=1.0,
        failure_marker="Assertion failed",
    ),
)
