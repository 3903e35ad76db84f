"""JavaScript (Node): run as a module; test programs run from the record runner with their own `require`;
LeetCode-style calls of a function or a `Solution` method, values as JSON both ways."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages
from judgegraph.tools.code.stdio_languages import _RUNTIME, ProgramLanguage, _runner


class JavaScript(ProgramLanguage):
    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _javascript(code, name, calls)

    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.js": code}, None, ["node", "--max-old-space-size=256", "main.js"])
        # The runner reads both, deletes itself, and runs them as one module with the test's own `require`.
        sources = {"solution.js": code, "test.js": test, "record_runner.js": _runner("record_runner.js")}
        return Step(sources, None, ["node", "--max-old-space-size=256", "record_runner.js"], record=True)


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
        f"{code}\n"
        ";(() => {\n"
        "  const jgCase = parseInt(require('fs').readFileSync(0, 'utf8'));\n"
        f"  const jgArgs = {cases}[jgCase];\n"
        f"  const jgR = {target}(...jgArgs);\n"
        "  const first = jgArgs.length ? jgArgs[0] : null;\n"
        "  const plain = (v) => v === null || v === undefined || ['number', 'string', 'boolean'].includes(typeof v)\n"
        "    || (Array.isArray(v) && v.every(plain));\n"
        "  if (!plain(jgR)) { console.log('\\n' + JSON.stringify({value: null, unprintable: String(jgR)})); return; }\n"
        "  // JSON has no non-finite numbers; Python's reader takes these tokens (as Python answers' reals travel)\n"
        "  const real = (k, v) => typeof v === 'number' && !Number.isFinite(v) ? '\\u0000jg:' + v : v;\n"
        "  const text = JSON.stringify({value: jgR === undefined ? null : jgR, first}, real);\n"
        "  console.log('\\n' + text.replace(/\"\\\\u0000jg:(NaN|-?Infinity)\"/g, '$1'));\n"
        "})();\n"
    )


languages.register(
    "javascript",
    JavaScript(
        "javascript",
        ("javascript", "js", "node", "nodejs", "mjs"),
        re.compile(r"\s*(const\s|let\s|var\s|function\s|class\s|import\s|require\(|['\"]use strict|process\.)"),
        re.compile(r"\bmain\s*\("),
        _RUNTIME,
        1024,
        {},
        startup_s=1.0,
        failure_marker="Assertion failed",
    ),
)
