"""Run the benchmark suite and rewrite BENCHMARKS.md: `python -m benchmarks.run [SECTION ...]`.

Each section is a module here with an async `bench() -> str` returning Markdown. Sections not named on the
command line keep their previous text in BENCHMARKS.md.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import platform
import re
import sys
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from benchmarks._util import previous_sections

SECTIONS = {
    "sandbox": "Code sandbox",
    "languages": "Code in every language: the image and one program's run",
    "tools": "Evidence tools: retrieval and zoom",
    "trajectories": "Trajectories: recording, store, replay, export",
    "pipeline": "Pipelines: batch throughput against concurrency",
    "server": "Reward server under load",
    "scaleout": "Scale-out: one process against Ray actors",
    "overhead": "Client overhead per judgment against the usual alternatives",
    "rule_rewards": "Rule-decided rewards against a plain verifier",
    "embedded": "The embedded llama.cpp server under the agentic judge",
    "threads": "The embedded model's threads, idle and beside a busy core",
    "vllm": "The agentic judge on vLLM (CPU) and on the embedded server",
    "workers": "A batch over worker processes (`judge --workers N`)",
    "made_evidence": "Evidence the judge makes: statement examples and differential testing",
    "mcp": "A tool call through MCP against the same call in-process",
    "group_server": "A verl-sized batch through the reward server: grouped against per rollout",
    "prefix_cache": "Model-judged groups and the servers' prefix caches",
    "hardening": "What the hardening against reward hacking costs a code case",
}
REPORT = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def _machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    system = f"{platform.system()} {platform.release()}"
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {system}, Python {platform.python_version()}"


def _written_by_hand() -> str:
    """What follows the last section (figures another command made, with their own notes): kept as it is."""
    if not REPORT.exists():
        return ""
    text = REPORT.read_text()
    ends = [m.end() for m in re.finditer(r"<!-- /section:\w+ -->\n?", text)]
    return text[ends[-1] :] if ends else ""


async def main(names: list[str]) -> None:
    unknown = set(names) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections {sorted(unknown)}; known: {sorted(SECTIONS)}")
    sections = previous_sections(REPORT, SECTIONS, "section")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for key in names or list(SECTIONS):
        module = importlib.import_module(f"benchmarks.{key}")
        print(f"running {key} ...", file=sys.stderr)
        body = await module.bench()
        command = f"python -m benchmarks.run {key}"
        sections[key] = f"## {SECTIONS[key]}\n\nMeasured {stamp} with `{command}`.\n\n{body}\n\n"
    versions = ", ".join(f"{p} {version(p)}" for p in ("judgegraph", "langgraph", "openai", "docker"))
    parts = [
        "# Benchmarks\n",
        "Rewritten by `python -m benchmarks.run` (all sections) or `python -m benchmarks.run SECTION`; "
        "each section names the command and time that produced it.\n",
        f"Machine: {_machine()}. Versions: {versions}.\n",
    ]
    parts += [f"<!-- section:{k} -->\n{sections[k]}<!-- /section:{k} -->\n" for k in SECTIONS if k in sections]
    REPORT.write_text("\n".join(parts) + _written_by_hand())
    print(f"wrote {REPORT}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
