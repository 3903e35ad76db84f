"""The import contract: judgegraph's layers, which may import which, and no cycles. This file is the contract
(CONTRIBUTING.md explains it); CI runs it with the rest of the tests.

Layers, lowest first. A module may import its own layer and the layers below it, never one above. Packages
listed together in a layer marked independent must not import each other either.
"""

from __future__ import annotations

import ast
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# folder -> the import name it installs under (pyproject's package-dir, the one map), and the repository's own
# code that never installs: the benchmarks and these tests.
FOLDERS = {
    folder: name
    for name, folder in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"
    ].items()
} | {"benchmarks": "benchmarks", "tests": "tests"}

LAYERS: list[tuple[str, list[str], bool]] = [
    # (layer, packages or modules, independent of each other)
    (
        "base",
        ["judgegraph.errors", "judgegraph.registry", "judgegraph.settings", "judgegraph._version", "judgegraph._gc"],
        False,
    ),
    ("schema", ["judgegraph.schema"], False),
    ("infrastructure", ["judgegraph.backends", "judgegraph.store", "judgegraph.sandboxes"], True),
    ("tools", ["judgegraph.tools"], False),
    ("agents", ["judgegraph.agents"], False),
    ("graphs", ["judgegraph.graphs"], False),
    ("runtime", ["judgegraph.runtime"], False),
    ("output", ["judgegraph.output"], False),
    ("pipelines", ["judgegraph.adapters"], False),
    ("serving", ["judgegraph.serving"], False),
    # Evals measure judges and the reward paths above them (the attack card goes through verl's, TRL's and the
    # server's); training evaluates what it trains.
    ("evals", ["judgegraph.evals"], False),
    ("training", ["judgegraph.training"], False),
    ("viewer", ["judgegraph.viz"], False),
    ("entry points", ["judgegraph.cli", "judgegraph"], True),
    ("python -m", ["judgegraph.__main__"], False),
    # Not installed: they may use all of judgegraph, and judgegraph none of them.
    ("repository", ["benchmarks", "tests"], False),
]
# The root package owns its own `__init__` only: a new subpackage or top-level module must be given a layer.
ROOTS = {"judgegraph"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:` (not imported at run time)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            lines |= {n.lineno for stmt in node.body for n in ast.walk(stmt) if hasattr(n, "lineno")}
    return lines


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the judgegraph modules it imports at run time (top level or inside functions)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        tree = ast.parse(path.read_text())
        skip = _type_checking_only(tree)
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.lineno not in skip:
                # `from pkg import mod` imports the module; `from pkg import name` imports pkg's face
                names = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]
            elif isinstance(node, ast.Import) and node.lineno not in skip:
                names = [a.name for a in node.names]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args:
                arg = node.args[0]
                names = [arg.value] if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else []
            for name in names:
                # `from pkg import name` imports pkg.name when that is a module, else pkg itself
                target = (
                    name if name in modules else name.rpartition(".")[0] if name.rpartition(".")[0] in modules else None
                )
                if target and target != module:
                    graph[module].add(target)
    return graph


def _layer_of(module: str) -> tuple[int, str]:
    """(layer index, the package or module of that layer that owns `module`)."""
    best: tuple[int, str] | None = None
    for index, (_, owners, _) in enumerate(LAYERS):
        for owner in owners:
            inside = module.startswith(owner + ".") and owner not in ROOTS
            if (module == owner or inside) and (best is None or len(owner) > len(best[1])):
                best = (index, owner)
    assert best is not None, f"{module} belongs to no layer: add it to LAYERS"
    return best


def _violations(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in graph.items():
        (layer, owner) = _layer_of(module)
        for target in targets:
            (target_layer, target_owner) = _layer_of(target)
            if target_layer > layer:
                wrong.append(f"{module} ({LAYERS[layer][0]}) imports {target} ({LAYERS[target_layer][0]}, above)")
            elif target_layer == layer and LAYERS[layer][2] and owner != target_owner:
                wrong.append(f"{module} imports {target}: {owner} and {target_owner} are independent")
    return sorted(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_every_module_has_a_layer_and_imports_only_downwards() -> None:
    wrong = _violations(_imports(_modules()))
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles_between_modules() -> None:
    cycles = _cycles(_imports(_modules()))
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_checks_see_a_violation() -> None:
    """An upward import, an import between independent packages and a cycle are each reported."""
    upward = {"judgegraph.schema._request": {"judgegraph.runtime._judge"}}
    assert _violations(upward) == [
        "judgegraph.schema._request (schema) imports judgegraph.runtime._judge (runtime, above)"
    ]
    sideways = {"judgegraph.store._sqlite": {"judgegraph.sandboxes._pool"}}
    assert "independent" in _violations(sideways)[0]
    assert _violations({"judgegraph.runtime._judge": {"judgegraph.graphs._recorded_graph"}}) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    with pytest.raises(AssertionError, match="belongs to no layer"):
        _layer_of("judgegraph.plugins._load")  # a subpackage nobody placed
    assert "above" in _violations({"judgegraph.runtime._judge": {"benchmarks.fake_openai"}})[0]
    real = _imports(_modules())
    assert {"judgegraph.graphs", "judgegraph.runtime._replay"} <= real["judgegraph.runtime._judge"]  # real imports seen


def test_the_cli_stays_in_small_modules() -> None:
    """One module per command group (judgegraph/cli/_app.py registers them): none grows past 500 lines."""
    sizes = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "judgegraph" / "cli").glob("*.py")}
    assert max(sizes.values()) <= 500, sizes


def _tool_rules(imports: dict[str, set[str]]) -> list[str]:
    """Inside `tools/`: a tool module (a public module at the top, one `@tool` face) imports no other tool module,
    and nothing else there (the rooms' engines: `code/`, `math/`, `claims/`, `images/`; the private infrastructure)
    imports a tool module: what tools share lives in the engines below them. And
    `benchmarks` never imports `tests` (tests import benchmarks)."""

    def is_tool(module: str) -> bool:
        parts = module.split(".")
        top = module.startswith("judgegraph.tools.") and len(parts) == 3 and not parts[2].startswith("_")
        return top and not (ROOT / "tools" / parts[2]).is_dir()  # a room (`code/`, `math/`, ...) is not a tool

    wrong = []
    for module, targets in imports.items():
        for target in targets:
            if module.startswith("judgegraph.tools.") and is_tool(target) and target != module:
                kind = "tool module" if is_tool(module) else "engine"
                wrong.append(f"{module} ({kind}) imports the tool module {target}")
            if module.startswith("benchmarks") and target.startswith("tests"):
                wrong.append(f"{module} imports {target}: benchmarks never import tests")
    return sorted(wrong)


def test_tools_share_engines_never_each_other() -> None:
    wrong = _tool_rules(_imports(_modules()))
    assert not wrong, "\n".join(wrong)
    assert _tool_rules({"judgegraph.tools.oracle_check": {"judgegraph.tools.run_code"}}) == [
        "judgegraph.tools.oracle_check (tool module) imports the tool module judgegraph.tools.run_code"
    ]
    assert _tool_rules({"judgegraph.tools.code.observe": {"judgegraph.tools.python"}})[0].endswith(
        "judgegraph.tools.python"
    )
    assert _tool_rules({"judgegraph.tools.run_code": {"judgegraph.tools.code.candidate_code"}}) == []
    assert _tool_rules({"benchmarks.languages": {"tests.conftest"}})


ROOMS = ("code", "math", "claims", "images", "responses")


def _past_limits(modules: list[Path], functions_in: list[Path]) -> dict[str, int]:
    """Modules past 500 lines, and, in `functions_in`, functions past 60: a newcomer reads one in a sitting."""
    out = {str(p.relative_to(ROOT)): n for p in modules if (n := len(p.read_text().splitlines())) > 500}
    for path in functions_in:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60:
                    out[f"{path.relative_to(ROOT)}:{node.name}"] = length
    return out


def test_tools_stay_in_small_modules_and_short_functions() -> None:
    """No module in `tools/` past 500 lines, and no function in its rooms (`code/`, `math/`, `claims/`, `images/`,
    `responses/`) past 60. The sandbox-side programs are not judgegraph's modules."""
    modules = [p for p in (ROOT / "tools").rglob("*.py") if "in_sandbox" not in p.parts]
    in_rooms = [p for p in modules if p.relative_to(ROOT / "tools").parts[0] in ROOMS]
    assert _past_limits(modules, in_rooms) == {}
    assert {p.name for p in (ROOT / "tools").iterdir() if p.is_dir()} >= {*ROOMS, "in_sandbox", "prompts"}


GRAPH_ROOMS = ("evidence", "agentic", "rubric", "propositions")


def _graph_room(module: str) -> str | None:
    """The judge room a `judgegraph.graphs` module lives in (None: the floor, or outside graphs/)."""
    parts = module.split(".")
    if not module.startswith("judgegraph.graphs.") or len(parts) < 3:
        return None
    return parts[2] if (ROOT / "graphs" / parts[2]).is_dir() else None


def _graph_rules(imports: dict[str, set[str]]) -> list[str]:
    """Inside `graphs/`: the floor (its top-level modules, the package face included) imports no judge's room,
    and no room imports another room: each judge stands on the floor alone."""
    wrong = []
    for module, targets in imports.items():
        if module != "judgegraph.graphs" and not module.startswith("judgegraph.graphs."):
            continue
        here = _graph_room(module)
        for target in targets:
            room = _graph_room(target)
            if room is None or room == here:
                continue
            if here is None:
                wrong.append(f"{module} (the floor) imports the room {room}: {target}")
            else:
                wrong.append(f"{module} (room {here}) imports another judge's room: {target}")
    return sorted(wrong)


def test_each_judge_has_a_room_on_a_shared_floor() -> None:
    wrong = _graph_rules(_imports(_modules()))
    assert not wrong, "\n".join(wrong)
    assert _graph_rules({"judgegraph.graphs.rubric.graph": {"judgegraph.graphs.evidence.nodes"}})
    assert _graph_rules({"judgegraph.graphs._runs": {"judgegraph.graphs.agentic.turns"}})
    assert _graph_rules({"judgegraph.graphs.rubric.graph": {"judgegraph.graphs._runs"}}) == []
    assert {p.name for p in (ROOT / "graphs").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(GRAPH_ROOMS)


def test_graphs_stay_in_small_modules_and_short_functions() -> None:
    """As in tools/: no module in `graphs/` past 500 lines, no function past 60."""
    modules = list((ROOT / "graphs").rglob("*.py"))
    assert _past_limits(modules, modules) == {}


@pytest.mark.parametrize("room", GRAPH_ROOMS)
def test_importing_one_judge_registers_that_judge_only(room: str) -> None:
    """In a fresh interpreter: importing a room registers its own graphs and no other judge's."""
    import subprocess
    import sys

    code = (
        f"import judgegraph.graphs.{room}\n"
        "from judgegraph.graphs import ROOMS, graph_kinds\n"
        "print(sorted(graph_kinds._items))\n"
        f"print(sorted(k for k, v in ROOMS.items() if v.endswith('.{room}')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == out[1], out


def test_one_place_finishes_a_trajectory() -> None:
    """How a run ended (status, verdict, end time, duration) and its reward are written into a trajectory in
    `runtime/_finish.py` only: a graph says how its run ended (`RunEnd`), and the runtime and replay finish
    through one function."""
    finished = {"status", "verdict", "ended_at", "duration_s", "reward"}
    writers = set()
    for module, path in _modules().items():
        if not module.startswith("judgegraph"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign | ast.AugAssign)
                else []
            )
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in finished
                    and getattr(target.value, "id", "") in {"trajectory", "t", "replayed"}
                ):
                    writers.add(module)
    assert writers == {"judgegraph.runtime._finish"}, writers


def test_the_model_endpoint_knows_no_backend_by_name() -> None:
    """`ModelEndpoint` opens whatever the backend registry (`backends/_registry.py`) gives for the settings: it
    imports no backend's module and names none (`embedded`, `openai`, a profile), so a plugin backend is one
    registration."""
    path = ROOT / "judgegraph" / "backends" / "_endpoint.py"
    tree = ast.parse(path.read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"judgegraph.backends._embedded", "judgegraph.backends._vllm"}, imported
    names = {"embedded", "openai", "vllm", "llama_cpp"}
    said = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not said & names, said & names
