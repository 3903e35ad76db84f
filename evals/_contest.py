"""`contest-noref`: ICPC-style problems as a judge receives them (the statement with its samples, stdin to
stdout), no tests given, a submission the jury accepted against one it rejected.

Read at run time from two pinned source archives on PyPI, fetched once with pip into judgegraph's cache and
never copied into this repository: problemtools' `examples/` (Kattis; the problems' licenses in their
`problem.yaml`) and BAPCtools' `test/problems/` (DOMjudge's and BAPC's test problems). Both use the Kattis
problem package format: a LaTeX statement, samples in `data/sample/`, submissions filed by the jury's verdict
(`accepted/`, `wrong_answer/`, `run_time_error/`, `time_limit_exceeded/`). The verdict is the label: it comes
from the packages' hidden data and validators, which the judge never sees.

Only pass-fail problems judged on stdin/stdout are used (no interactive, multi-pass or scoring ones), and only
single-file submissions in languages the sandbox runs. The submissions' comments are taken out (they name
their verdict: "Incorrect solution...", "This should give WRONG-ANSWER"); what is left is shown as models
write an answer, in a fence with a line of prose.
"""

from __future__ import annotations

import ast
import fcntl
import random
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import yaml

from judgegraph.errors import PrerequisiteError
from judgegraph.evals._sets import eval_sets
from judgegraph.schema import JudgeRequest

ARCHIVES = {
    "problemtools==1.20260907": ("55f19b6a72ef5cb07daf0a4e612be963a15e7972891a3afb0fff89244b6228c6", "examples/"),
    "bapctools==2026.10.0": ("7d2adcf8a6deacf410f8b9277d059126fa3206126c90c75a178e815478f4273e", "test/problems/"),
}
"""The pinned source archives (pip checks each one's SHA-256) and the folder of problems in each."""

_REJECTED = ("wrong_answer", "run_time_error", "time_limit_exceeded")
_LANGUAGES = {
    ".c": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".java": "java",
    ".js": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".py": "python",
    ".py3": "python",
}
_NAMES = {
    "c": "C",
    "cpp": "C++",
    "java": "Java",
    "javascript": "JavaScript",
    "go": "Go",
    "rust": "Rust",
    "python": "Python",
}


@dataclass(frozen=True)
class Submission:
    path: str
    """Where it is filed: `<package>/<problem>/<verdict>/<file>`."""
    verdict: str
    language: str
    code: str


@dataclass(frozen=True)
class Problem:
    name: str
    """`<package>/<problem folder>`."""
    title: str
    body: str
    """The statement as text, before its samples."""
    after_first: str
    """Text the statement prints after the first sample (`\\nextsample`)."""
    after_all: str
    """Text it prints after all samples (`\\remainingsamples`)."""
    samples: tuple[tuple[str, str], ...]
    """(input, expected output) as the statement shows them."""
    accepted: tuple[Submission, ...]
    rejected: tuple[Submission, ...]


# ---------------------------------------------------------------- the archives


def problems_dir(cache: Path | None = None) -> Path:
    """The folder holding both archives' problems, `<package>/<problem>/` (fetched on first use; processes that
    ask at once wait for the one fetching)."""
    root = (cache or Path(platformdirs.user_cache_dir("judgegraph"))) / "contest-problems"
    out = root / "problems"
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / ".complete").is_file():
            _fetch(root, out)
    return out


def _fetch(root: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)  # what an interrupted fetch left
    requirements = root / "requirements.txt"
    requirements.write_text("".join(f"{pin} --hash=sha256:{digest}\n" for pin, (digest, _) in ARCHIVES.items()))
    fetch = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "--require-hashes"]
    done = subprocess.run(
        [*fetch, "-d", str(root), "-r", str(requirements)], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        raise PrerequisiteError(f"could not fetch the contest problems' archives: {done.stderr[-500:]}")
    for pin, (_, folder) in ARCHIVES.items():
        package, _, wanted = pin.partition("==")
        archive = root / f"{package}-{wanted}.tar.gz"
        prefix = f"{package}-{wanted}/{folder}"
        with tarfile.open(archive) as tar:
            members = [  # files only: the validators' links into the tools' own folders are not needed
                m for m in tar.getmembers() if m.isfile() and m.name.startswith(prefix) and len(m.name) > len(prefix)
            ]
            for m in members:
                m.name = f"{package}/{m.name[len(prefix) :]}"
            tar.extractall(out, members=members, filter="data")
        archive.unlink()
    (out / ".complete").write_text("")


# ---------------------------------------------------------------- statements: LaTeX to the text a judge reads


def _arg(tex: str, start: int) -> tuple[str, int]:
    """The braced argument at `start` (after spaces) and the index after it; ("", start) if there is none."""
    i = start
    while i < len(tex) and tex[i] in " \t":
        i += 1
    if i >= len(tex) or tex[i] != "{":
        return "", start
    depth = 0
    for j in range(i, len(tex)):
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        if depth == 0:
            return tex[i + 1 : j], j + 1
    return tex[i + 1 :], len(tex)


def _commands(tex: str, name: str, arity: int, render: Callable[..., str]) -> str:
    """Every `\\name{a}{b}...` (`arity` arguments) replaced by `render(a, b, ...)`."""
    out, i = [], 0
    pattern = re.compile(rf"\\{name}(?![A-Za-z])")
    while m := pattern.search(tex, i):
        out.append(tex[i : m.start()])
        args, j = [], m.end()
        for _ in range(arity):
            a, j = _arg(tex, j)
            args.append(a)
        out.append(render(*args))
        i = j
    out.append(tex[i:])
    return "".join(out)


def tex_to_text(tex: str) -> tuple[str, str, str, str]:
    """(title, body, after the first sample, after all samples) of a Kattis LaTeX statement, as the text of its
    rendered page reads: sections as headings, lists as `- ` lines, math kept in `$...$`."""
    tex = re.sub(r"(?<!\\)%.*", "", tex)
    macros: dict[str, str] = {}

    def define(name: str, value: str) -> str:
        macros[name.strip().lstrip("\\")] = value
        return ""

    tex = _commands(tex, "newcommand", 2, define)
    for name, value in sorted(macros.items(), key=lambda kv: -len(kv[0])):
        tex = re.sub(rf"\\{re.escape(name)}(?![A-Za-z])(?:\{{\}})?", value.replace("\\", "\\\\"), tex)
    titles: list[str] = []

    def title(text: str) -> str:
        titles.append(text)
        return ""

    tex = _commands(tex, "problemname", 1, title)
    tex = _commands(tex, "illustration", 3, lambda _w, _f, _c: "")
    for command in ("texttt", "emph", "textbf", "textit", "text", "url"):
        tex = _commands(tex, command, 1, lambda t: t)
    tex = _commands(tex, "href", 2, lambda _u, t: t)
    tex = _commands(tex, "section\\*", 1, lambda t: f"\n{t}\n")
    tex = _commands(tex, "section", 1, lambda t: f"\n{t}\n")
    tex = re.sub(r"\\begin\{(Input|Output)\}", r"\n\1\n", tex)
    tex = re.sub(r"\\end\{(Input|Output)\}", "\n", tex)
    tex = re.sub(r"\\(?:begin|end)\{(?:itemize|enumerate|center)\}", "", tex)
    tex = re.sub(r"[ \t]*\\item\s*", "\n- ", tex)
    tex = tex.replace("\\timelimit{}", "the time limit").replace("\\timelimit", "the time limit")
    tex = tex.replace("``", '"').replace("''", '"').replace("\\-", "").replace("~", " ").replace("\\\\", "\n")
    tex = tex.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    parts = re.split(r"\\(nextsample|remainingsamples)(?:\{\})?", tex)
    body, after_first, after_all = parts[0], "", ""
    for marker, text in zip(parts[1::2], parts[2::2], strict=True):
        if marker == "nextsample":
            after_first = text
        else:
            after_all = text

    def tidy(text: str) -> str:
        lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()

    return tidy(titles[0] if titles else ""), tidy(body), tidy(after_first), tidy(after_all)


# ---------------------------------------------------------------- problems and submissions


def without_comments(code: str, language: str) -> str | None:
    """`code` without its comments (which name the verdict); None if the result does not read as `language`."""
    if language == "python":
        try:
            ast.parse(code)
        except SyntaxError:
            return None  # Python 2
        lines = [line for line in code.splitlines() if not line.lstrip().startswith("#")]
        code = "\n".join(lines)
    else:
        code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
        code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("//"))
    return re.sub(r"\n{3,}", "\n\n", code).strip() + "\n"


def _submissions(folder: Path, verdict: str, name: str) -> list[Submission]:
    out = []
    for path in sorted((folder / "submissions" / verdict).glob("*")):
        language = _LANGUAGES.get(path.suffix)
        if language is None or not path.is_file():
            continue  # another language, a multi-file submission, or one the package disabled
        code = without_comments(path.read_text(errors="replace"), language)
        if code is not None:
            out.append(Submission(f"{name}/{verdict}/{path.name}", verdict, language, code))
    return out


def _samples(folder: Path) -> tuple[tuple[str, str], ...] | None:
    """The samples as the statement shows them (`.in.statement` / `.ans.statement` over `.in` / `.ans`); None
    for an interactive sample."""
    sample = folder / "data" / "sample"
    if not sample.is_dir():
        return ()
    if any(sample.glob("*.interaction")):
        return None
    out = []
    for stem in sorted({p.name.split(".")[0] for p in sample.iterdir() if p.name.endswith((".in", ".in.statement"))}):
        shown_in = sample / f"{stem}.in.statement"
        shown_ans = sample / f"{stem}.ans.statement"
        stdin = (shown_in if shown_in.is_file() else sample / f"{stem}.in").read_text()
        ans_file = shown_ans if shown_ans.is_file() else sample / f"{stem}.ans"
        if ans_file.is_file():
            out.append((stdin, ans_file.read_text()))
    return tuple(out)


def problems(cache: Path | None = None) -> list[Problem]:
    """The pass-fail stdin problems with an accepted and a rejected submission, one copy of each (BAPCtools
    carries copies of problemtools' examples: the originals are kept), problemtools' first."""
    root = problems_dir(cache)
    out: list[Problem] = []
    seen: set[str] = set()
    folders = [p for p in root.glob("*/*") if (p / "problem.yaml").is_file()]
    for folder in sorted(folders, key=lambda p: (p.parent.name != "problemtools", p.name)):  # the originals first
        config = yaml.safe_load((folder / "problem.yaml").read_text()) or {}
        kind = config.get("type", "pass-fail")
        kinds = kind if isinstance(kind, list) else str(kind).split()
        if kinds != ["pass-fail"] or "interactive" in str(config.get("validation", "")):
            continue
        statement = folder / "statement" / "problem.en.tex"
        if not statement.is_file():
            statement = folder / "problem_statement" / "problem.en.tex"
        tex = statement.read_text() if statement.is_file() else ""
        samples = _samples(folder)
        if not tex or samples is None or "\\constant" in tex:
            continue  # no statement, an interactive sample, or BAPCtools' templated constants (in submissions too)
        title, body, after_first, after_all = tex_to_text(tex)
        key = f"{body}|{samples}"
        if key in seen:
            continue
        named = config.get("name")
        title = title or (named.get("en", "") if isinstance(named, dict) else str(named or ""))
        name = f"{folder.parent.name}/{folder.name}"
        accepted = _submissions(folder, "accepted", name)
        rejected = [s for verdict in _REJECTED for s in _submissions(folder, verdict, name)]
        if accepted and rejected:
            seen.add(key)
            out.append(Problem(name, title, body, after_first, after_all, samples, tuple(accepted), tuple(rejected)))
    return out


# ---------------------------------------------------------------- how the problem and the answers are shown


def statement(p: Problem, layout: int) -> str:
    """The problem as a judge receives it: its title and text, then the samples, as Kattis's page reads
    (`Sample Input 1` then its box; layout 0) or as TACO carries Kattis problems (`-----Examples-----`,
    `Sample Input 1:`; layout 1)."""
    shown = []
    for k, (stdin, expected) in enumerate(p.samples, 1):
        if layout == 0:
            shown.append(f"Sample Input {k}\n\n{stdin.rstrip()}\n\nSample Output {k}\n\n{expected.rstrip()}")
        else:
            shown.append(f"Sample Input {k}:\n{stdin.rstrip()}\nSample Output {k}:\n{expected.rstrip()}")
        if k == 1 and p.after_first:
            shown.append(p.after_first)
    if p.after_all:
        shown.append(p.after_all)
    head = f"{p.title}\n\n{p.body}" if p.title else p.body
    samples = "\n\n".join(shown)
    if layout == 1 and p.samples:
        samples = f"-----Examples-----\n{samples}"
    return f"{head}\n\n{samples}".strip() + "\n"


_ANSWERS = (
    "```{tag}\n{code}```",
    "Here is a solution in {language}. It reads the input from standard input and prints the answer.\n\n"
    "```{tag}\n{code}```",
    "```{tag}\n{code}```\n\nThe program follows the input format described in the statement.",
)
"""How models present a contest answer: fenced, with a line of prose before or after."""


def answer(s: Submission, i: int) -> str:
    return _ANSWERS[i % len(_ANSWERS)].format(tag=s.language, language=_NAMES[s.language], code=s.code)


@eval_sets.decorator("contest-noref")
async def _contest_noref(n: int, seed: int) -> list[JudgeRequest]:
    """ICPC problems (problemtools and BAPCtools) without tests: an accepted submission against a rejected one,
    one pair per rejected submission, the problems taken in turn."""
    rng = random.Random(seed + 29)
    queues = []
    for p in problems():
        pairs = [(p, rng.choice(p.accepted), bad) for bad in p.rejected]
        rng.shuffle(pairs)
        queues.append(pairs)
    out: list[JudgeRequest] = []
    while len(out) < n and any(queues):
        for queue in queues:
            if queue and len(out) < n:
                p, good, bad = queue.pop()
                i = len(out)
                shown = [answer(good, i), answer(bad, i + 1)]
                winner = rng.randrange(2)
                out.append(
                    JudgeRequest(
                        id=f"contest-noref/{bad.path}",
                        prompt=statement(p, i % 2),
                        candidates=shown if winner == 0 else shown[::-1],
                        label={"winner": winner},
                        metadata={
                            "category": f"contest-noref: {bad.verdict.replace('_', ' ')}",
                            "source": p.name,
                            "submissions": [good.path, bad.path] if winner == 0 else [bad.path, good.path],
                        },
                    )
                )
    return out
