"""Java: built with javac, run on a small JVM; test programs run from `JgRunner`; LeetCode-style calls on
`Solution`, arguments written as the declared types (arrays, lists), values read back as JSON."""

from __future__ import annotations

import re
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import (
    RUNTIME_LIMITS,
    ProgramLanguage,
    code_only,
    joined_source,
    runner_source,
)
from judgegraph.tools.code.languages._values import (
    c_scalar,
    call_on_locals,
    declared_locals,
    generic_in,
    natural_types,
    param_types,
    spelling,
)

_JAVA_RUNTIME = (
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    # The JVM reserves a gigabyte for class metadata by default; these keep it well under the run's limit.
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=128m",
)


def java_main_class(source: str) -> str:
    """The class to run: the public one (its file must bear its name), else the one with `main`."""
    public = re.search(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+(\w+)", source, re.MULTILINE)
    if public:
        return public.group(1)
    at = re.search(r"static\s+void\s+main\s*\(", source)
    classes = [(m.start(), m.group(1)) for m in re.finditer(r"\bclass\s+(\w+)", source)]
    before = [name for pos, name in classes if at is None or pos < at.start()]
    return before[-1] if before else "Main"


JAVA_LIBRARY = frozenset(
    """
    Object String StringBuilder StringBuffer Math StrictMath System Runtime Thread Integer Long Short Byte Double
    Float Boolean Character Number Void Class ClassLoader Enum Record Iterable Comparable Runnable CharSequence
    Throwable Error Exception RuntimeException AssertionError IllegalArgumentException IllegalStateException
    NullPointerException ArithmeticException IndexOutOfBoundsException UnsupportedOperationException Objects Arrays
    Collections List ArrayList LinkedList Map HashMap LinkedHashMap TreeMap Set HashSet LinkedHashSet TreeSet Queue
    Deque ArrayDeque PriorityQueue Stack Vector Iterator Comparator Optional Random Scanner StringJoiner BitSet
    Collection AbstractList AbstractMap
    """.split()
)
"""The java.lang classes a test names without importing them, and the java.util ones it imports on demand: a
class of the answer's with one of these names, in the test's package, is the one the test's name resolves to."""


class Java(ProgramLanguage):
    runtime_names = JAVA_LIBRARY
    declares = re.compile(r"\b(?:class|interface|enum|record)\s+(\w+)")

    def redefinition(self, name: str) -> str:
        return f"class {name} {{}}"

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _java(code, name, calls)

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _java(code, name, calls, natural=True)

    def placed_answer(self, code: str) -> str:
        return _java_answer(code)

    def step(self, code: str, test: str | None) -> Step:
        source = joined_source(code, test)
        # Imports must come first: those of a test appended after the code move up.
        imports = re.findall(r"^\s*import\s+[\w.*\s]+;\s*$", source, re.MULTILINE)
        body = re.sub(r"^\s*import\s+[\w.*\s]+;\s*$", "", source, flags=re.MULTILINE)
        package = re.compile(r"^\s*package\s+[\w.]+\s*;\s*$", re.MULTILINE)
        source = "\n".join(dict.fromkeys(i.strip() for i in imports)) + "\n" + package.sub("", body)
        cls = java_main_class(source)
        javac = ["javac", "-encoding", "UTF-8", *(f"-J{flag}" for flag in _JAVA_RUNTIME)]
        if test is None:
            return Step({f"{cls}.java": source}, [*javac, f"{cls}.java"], ["java", *_JAVA_RUNTIME, "-cp", ".", cls])
        # The test's main runs from the runner, which records its return: a static initialiser's System.exit(0)
        # or one in the call never gets there.
        runner = (
            runner_source("JgRunner.java")
            .replace("__JG_MAIN_CLASS__", java_main_class(test))
            .replace("__JG_TESTED__", ", ".join(f'"{name}"' for name in _called(test)))
            .replace("__JG_TEST_CLASSES__", ", ".join(f'"{name}"' for name in _TEST_CLASS.findall(test)))
        )
        sources = {f"{cls}.java": source, "JgRunner.java": runner}
        build = [*javac, f"{cls}.java", "JgRunner.java"]
        # -ea: a test's `assert` statements run (the JVM skips them by default, and every answer would pass them)
        run = ["java", *_JAVA_RUNTIME, "-ea", "-cp", ".", "JgRunner"]
        # the sources go after the build, the classes before the answer runs (`JgRunner`): the answer reads neither
        return Step(sources, build, run, record=True, secret=("JgRunner.java", f"{cls}.java"))


_TEST_CLASS = re.compile(r"\b(?:class|interface|enum|record)\s+(\w+)")
_JAVA_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "new", "synchronized", "super", "this", "assert"}


def _called(test: str) -> list[str]:
    """The names a test calls (`add(`, `.equals(`, `Problem.add(`): the answer's methods among them have their
    results checked plain before the test runs (`in_sandbox/JgRunner.java`)."""
    return sorted({n for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", code_only(test)) if n not in _JAVA_KEYWORDS})


_JAVA_WORDS = frozenset(
    "Object Number Integer Long Double Float Short Byte Boolean Character String CharSequence List ArrayList "
    "Collection Iterable Comparable int long double float short byte boolean char".split()
)
"""What a Java type the judge writes as the statement's value may name, beside the answer's own types."""
_JAVA_BOXED = {"int": "Integer", "long": "Long", "double": "Double", "boolean": "Boolean", "char": "Character"}


def _java_value(t: str, v: object) -> str | None:
    t = t.replace(" ", "")
    if t.endswith("[]"):
        inner = t[:-2]
        if not isinstance(v, list | tuple):
            return None
        items = [_java_value(inner, x) for x in v]
        return None if None in items else f"new {t}{{{', '.join(items)}}}"  # type: ignore[arg-type]
    if m := re.fullmatch(r"(?:List|ArrayList)<(.+)>", t):
        if not isinstance(v, list | tuple):
            return None
        element = m.group(1)
        items = [_java_value(element, x) for x in v]
        if None in items:
            return None
        return f"new ArrayList<{element}>(Arrays.<{element}>asList({', '.join(items)}))"  # type: ignore[arg-type]
    t = {boxed: prim for prim, boxed in _JAVA_BOXED.items()}.get(t, t)
    kind = {"boolean": "bool", "String": "string", "short": "int", "byte": "int", "double": "real"}.get(t, t)
    if t == "float":
        real = c_scalar("real", v, "")
        return real and real + "f"
    return c_scalar(kind, v, "L") if kind in ("bool", "char", "string", "int", "long", "real") else None


_JAVA_JSON = sandbox_source("call_json.java")


_JAVA_SCALAR = re.compile(r"int|long|short|byte|double|float|boolean|char|String|Integer|Long|Double|Boolean|Character")


def _java_printable(t: str) -> bool:
    """Whether the runner prints a `t` as JSON the statement's value compares with (not a map or a set)."""
    while True:
        if t.endswith("[]"):
            t = t[:-2]
        elif m := re.fullmatch(r"(?:List|ArrayList|LinkedList)<(.+)>", t):
            t = m.group(1)
        else:
            return _JAVA_SCALAR.fullmatch(t) is not None


def _java_answer(code: str) -> str:
    """One public class per file: the answer's classes lose `public`, the runner's has it (the driver runs it)."""
    return re.sub(r"(?m)^public\s+((?:final\s+|abstract\s+)*(?:class|interface|enum|record)\b)", r"\1", code)


_JAVA_TOKEN = sandbox_source("call_token.java")
"""The build's token that starts the report line (spelled by the driver, under a name the answer cannot know)."""


def _owner(code: str, at: int) -> str | None:
    """The innermost class whose body holds position `at` of `code` (a method's declaration): what the call is made
    on, `Solution` as LeetCode writes it or whatever class the answer put the method in."""
    literal = r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\''
    bare = re.sub(literal, lambda d: re.sub(r"[^\n]", " ", d.group()), code, flags=re.DOTALL)  # offsets kept
    owner = None
    for m in re.finditer(r"\bclass\s+(\w+)[^{;]*\{", bare[:at]):
        depth, i = 1, m.end()
        while i < at and depth:
            depth += {"{": 1, "}": -1}.get(bare[i], 0)
            i += 1
        if depth:
            owner = m.group(1)  # still open at `at`: this class, or one inside it found later
    return owner


_JAVA_BOXED = {"int": "Integer", "long": "Long", "double": "Double", "boolean": "Boolean"}
_JAVA_SPELL = spelling(
    {"bool": "boolean", "int": "int", "long": "long", "real": "double", "string": "String"},
    lambda element: f"List<{_JAVA_BOXED.get(element, element)}>",
)


def _java(code: str, name: str, calls: Sequence[tuple[object, ...]], natural: bool = False) -> str | None:
    m = re.search(rf"([\w<>\[\],\s]+?)\s+\b{re.escape(name)}\s*\(([^)]*)\)\s*(?:throws[^{{]*)?\{{", code)
    owner = None if m is None else _owner(code, m.start(2))
    if m is None or owner is None:
        return None
    returns = m.group(1).split()[-1].replace(" ", "")
    types = param_types(m.group(2))
    if natural:  # `Object`, a type variable, varargs: the statement's values as Java writes them; any result prints
        generic = generic_in(code, _JAVA_WORDS)
        if (types := natural_types(types, calls, _java_value, _JAVA_SPELL, generic)) is None:  # type: ignore[assignment]
            return None
    elif returns != "void" and not _java_printable(returns):
        return None
    declared = declared_locals(types, calls, _java_value)
    if declared is None:
        return None
    line = code[code.rfind("\n", 0, m.start(2)) + 1 : m.start(2)]
    on = owner if re.search(r"\bstatic\b", line) else f"new {owner}()"  # LeetCode's `Solution`, or any class
    call = call_on_locals(f"{on}.{name}", len(types))
    cases = []
    for k, lines in enumerate(declared):
        first = "jgJson(a0)" if types else '"null"'
        value = "null" if returns == "void" else "jgJson(jgR)"
        lines.append(f"{call};" if returns == "void" else f"Object jgR = {call};")
        report = f'"{{\\"value\\":" + {value} + ",\\"first\\":" + {first} + "}}"'
        lines.append(f'System.out.println("\\n" + __JG_KEY___token() + {report}); break;')
        cases.append(f"case {k}: {{ {' '.join(lines)} }}")
    return (
        "import java.util.*;\nimport java.util.stream.*;\n"
        f"{_java_answer(code)}\n"
        "public class JgMain {\n"
        f"{_JAVA_JSON}\n{_JAVA_TOKEN}\n"
        "    public static void main(String[] jgArgs) throws Exception {\n"
        "        java.io.BufferedReader jgIn = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));\n"
        "        int jgCase = Integer.parseInt(jgIn.readLine().trim());\n"
        "        switch (jgCase) {\n" + "\n".join(cases) + "\n        }\n    }\n}\n"
    )


languages.register(
    "java",
    Java(
        "java",
        ("java",),
        re.compile(r"\s*(import\s|package\s|public\s|class\s|final\s|abstract\s)"),
        re.compile(r"static\s+void\s+main\s*\("),
        RUNTIME_LIMITS,
        1024,
        {},
        startup_s=2.0,
    ),
)
