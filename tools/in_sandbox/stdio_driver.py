"""The driver of a program run: build the candidate's program, run it once per test case, report each case.

Not imported by judgegraph: it runs in the sandbox as `python3 -I driver.py`, for every language whose tests are
stdin/stdout cases, and for function-style tests in languages other than Python (the candidate's code and the
test program built together with a runner from `in_sandbox/`; the case passes when that program exits 0 and its
runner wrote the build's completion token, which only a return from the test's own `main` does; a call runner's
observed report is the line its token starts). It reads the
spec (sources, commands, expected outputs, report marker) from `.judgegraph-run.json` and deletes the file before
anything of the candidate's is built or run, then makes itself undumpable, so neither the compiler (an `#include`
of the spec) nor the program (/proc, ptrace) can read the marker or the expected outputs. Each build happens in a
fresh directory just before its cases run, and whatever a build or case leaves running is killed before the next
starts (the driver is their subreaper), so one case cannot rewrite the next case's test or program. The program's
output goes to files (a flood meets the run's file-size limit); the last marker line on stdout is the report.
"""

import contextlib
import ctypes
import glob
import json
import math
import os
import re
import resource
import secrets
import shutil
import signal
import subprocess

SPEC_FILE = ".judgegraph-run.json"
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
CAPTURED = 64 * 1024
"""Characters of an observed case's output reported back."""
SHOWN = 200
"""Characters of expected and actual output quoted in a failed case's message."""


def read_tail(path, limit):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def read_all(path, limit):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def execute(command, env, timeout, stdin_text, address_space=None, record=None):
    """Run `command` in its own process group (under a tighter address-space limit, if given); returns (exit
    status or None, timed out, stdout, stderr). With a list `record`, the program gets a pipe's write end (its
    number in `JG_RECORD_FD`) and what it wrote there is appended to `record`."""

    def limit():
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    with open(".in", "wb") as f:
        f.write(stdin_text.encode())
    reader = writer = None
    if record is not None:
        reader, writer = os.pipe()
        os.set_blocking(reader, False)
        env = {**env, "JG_RECORD_FD": str(writer)}
    with open(".in", "rb") as stdin, open(".out", "wb") as out, open(".err", "wb") as err:
        try:
            process = subprocess.Popen(
                command,
                stdin=stdin,
                stdout=out,
                stderr=err,
                env=env,
                start_new_session=True,
                preexec_fn=limit,
                pass_fds=() if writer is None else (writer,),
            )
        except OSError as e:
            return 127, False, "", f"cannot start {command[0]}: {e}"
        finally:
            if writer is not None:
                os.close(writer)
        timed_out = False
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out, status = True, None
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever it started, too
        process.wait()
    if reader is not None:
        with contextlib.suppress(OSError):
            record.append(os.read(reader, RECORD_BYTES))
        os.close(reader)
    # 64 MiB of output at most is read back (the file-size limit stops a flood well before).
    return status, timed_out, read_all(".out", 64 << 20), read_tail(".err", 4000)


RECORD_BYTES = 4096


def completion_token():
    """A fresh token and the source text that spells it (`__JG_MASKED__` and `__JG_MASK__`: the token's bytes
    XOR a mask, so the built program holds no copy of it to find), and a fresh identifier (`__JG_KEY__`)."""
    token = secrets.token_hex(16).encode()
    mask = secrets.token_bytes(len(token))
    spelled = {
        "__JG_MASKED__": ", ".join(str(t ^ m) for t, m in zip(token, mask, strict=True)),
        "__JG_MASK__": ", ".join(str(m) for m in mask),
        "__JG_KEY__": "jg_" + secrets.token_hex(8),
    }
    return token, spelled


def lines(text):
    """Output as a judge compares it: line ends normalised, trailing spaces and trailing blank lines ignored."""
    out = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while out and not out[-1]:
        out.pop()
    return out


def close(expected, got, tolerance):
    """Token by token; numbers may differ by `tolerance`, absolute or relative (Codeforces' rule)."""
    want, have = expected.split(), got.split()
    if len(want) != len(have):
        return False
    for a, b in zip(want, have, strict=True):
        if a == b:
            continue
        try:
            x, y = float(a), float(b)
        except ValueError:
            return False
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        if abs(x - y) > tolerance * max(1.0, abs(x)):
            return False
    return True


def same_output(expected, got, tolerance):
    if tolerance is not None:
        return close(expected, got, tolerance)
    return lines(expected) == lines(got)


def quoted(text):
    text = text if len(text) <= SHOWN else text[:SHOWN] + "..."
    return json.dumps(text)


def exited(status):
    if status is not None and status < 0:
        return f"killed by signal {-status}"
    return f"exited with status {status}"


def exported_by(libraries, names):
    """Of `names`, those `libraries` (or the libraries they load) export, each with the first such library: looked up
    by the dynamic linker itself, in the driver's own process, before anything of the candidate's runs."""
    found = {}
    for library in libraries:
        try:
            loaded = ctypes.CDLL(library)
        except OSError:
            continue  # not on this machine: nothing built here links it
        for name in names:
            if name not in found:
                try:
                    loaded[name]  # dlsym (`getattr` refuses names such as `__x__`)
                except AttributeError:
                    continue
                found[name] = library
    return found


def defined_symbols(path, env):
    """(type, name) of each global symbol `path` defines (`nm`'s letters: `T` text, `W` weak, ...)."""
    listed = subprocess.run(["nm", "-g", "--defined-only", path], env=env, capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise OSError(f"nm could not list the symbols of {path}: {listed.stderr.strip()[-300:]}")
    found = []
    for line in listed.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            found.append((parts[-2], parts[-1]))
    return found


def takes_place(kind, name):
    """Whether a symbol of `nm`'s `kind` the program defines, named `name`, would take the place of a library's of
    that name: code (`T`, an indirect function `i`, or weak `W`, which may be either) does. Data does not (a
    C++ answer's global `int link[N]` calls nothing), nor a versioned symbol (`stderr@GLIBC_2.2.5`, the library's
    own, copied into the program when it links), nor a weak C++ one (a template or inline function the headers
    instantiate, as the library did: code that names its own symbols or makes them weak is refused before this)."""
    if "@" in name:
        return False
    return kind in "Ti" or (kind == "W" and not name.startswith("_Z"))


def takes_runtime_symbols(executable, libraries, env):
    """Why `executable` may not run a test: the functions it defines that `libraries` export (its own definition
    would take the library's place in the test's calls and those of the library code inlined into it: `memcmp`
    behind `std::string`'s `==`); None where there are none."""
    own = [name for kind, name in defined_symbols(executable, env) if takes_place(kind, name)]
    exports = exported_by(libraries, own)
    taken = sorted(exports.items())
    if not taken:
        return None
    named = ", ".join(f"{name} ({library})" for name, library in taken[:8])
    return f"the program defines what the runtime's libraries export, which the test would call instead: {named}"


SYMBOL_NAMING = re.compile(
    r"\b(?:__asm__|__asm|asm)\b"  # an asm label (`f() __asm__("memcmp")`) or assembly defining a symbol
    r"|^\s*#\s*pragma\s+(?:weak|redefine_extname)\b"
    r"|(?:__attribute__\s*\(\((?:[^()]|\([^()]*\))*?|\[\[[^\]]*?)\b_*(?:weak|weakref|alias|ifunc|symver)_*\b",
    re.M,
)
"""What lets C or C++ code name the symbol it defines, or make it weak: the one way its definition could take a
library function's place without its name being the library's unmangled one (a weak definition named like one of
libstdc++'s own inline functions, which the headers instantiate as weak symbols too)."""
LINE_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)(?:[ \t]|/\*.*?\*/)*(?:line\b|\d)", re.M)
"""`#line 1 "/usr/include/string"`: the code's lines would read as a header's."""
LINE_MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"([^"]*)".*$', re.M)
"""A preprocessed file's mark of where the lines after it come from."""


def names_symbols(source):
    """Where `source`'s own lines (not its headers'), as the compiler read them after every macro, name a symbol
    or make one weak (`SYMBOL_NAMING`): the text found, else None. Read from the preprocessed file `-save-temps`
    leaves beside the build; none there (Rust): None."""
    preprocessed = glob.glob("*.ii") + glob.glob("*.i")
    if not preprocessed:
        return None
    with open(source, errors="replace") as f:
        directive = LINE_DIRECTIVE.search(f.read().replace("\\\n", ""))
    if directive:
        return directive.group(0).strip()
    with open(preprocessed[0], errors="replace") as f:
        text = f.read()
    markers = list(LINE_MARKER.finditer(text))  # each starts the lines of the file it names
    ends = [m.start() for m in markers[1:]] + [len(text)]
    own = [text[m.end() : end] for m, end in zip(markers, ends, strict=True) if m.group(1) == source]
    # String literals are read too: stripping them would mean lexing C++ (raw strings, digit separators) exactly,
    # and a word such as `asm` in an answer's text is rare enough to refuse
    found = SYMBOL_NAMING.search("".join(own))
    return found.group(0) if found else None


def build(step, env, timeout, spelled=None):
    """Write the step's sources (the completion token spelled into them, where `spelled`), run its build; returns
    the build error or None. The files that hold the token (`secret`: names or patterns, the sources and what the
    compiler left of them) are deleted once built."""
    for name, text in step["sources"].items():
        for placeholder, value in (spelled or {}).items():
            text = text.replace(placeholder, value)
        with open(name, "w") as f:
            f.write(text)
    try:
        if not step["build"]:
            return None
        status, timed_out, out, err = execute(step["build"], env, timeout, "")
        if timed_out:
            return f"the build took longer than {timeout:g}s"
        if status != 0:
            return f"the build failed ({exited(status)}): " + (err or out)[-1500:].strip()
        if step.get("runtime_libraries"):
            named = names_symbols(next(iter(step["sources"])))
            if named:
                return f"the build failed: the code names its own symbols or makes them weak (`{named}`)"
            try:
                taken = takes_runtime_symbols(step["run"][0], step["runtime_libraries"], env)
            except OSError as e:
                taken = f"the judge could not list its symbols: {e}"
            if taken:
                return "the build failed: " + taken
        return None
    finally:
        for pattern in step.get("secret") or ():
            for name in glob.glob(pattern):
                with contextlib.suppress(OSError):
                    os.unlink(name)


def run_case(case, step, env, spec, token=None):
    timeout, failure_marker = spec["case_timeout"], spec.get("failure_marker")
    record = [] if token is not None and "output" not in case and not case.get("capture") else None
    status, timed_out, out, err = execute(
        step["run"], env, timeout, case.get("input") or "", spec["run_address_space"], record
    )
    if timed_out:
        return ["timeout", f"took longer than {timeout:g}s"]
    if case.get("capture"):  # observed, not tested: the judge compares the output outside the sandbox
        if status != 0:
            return ["error", exited(status) + ": " + err[-300:].strip()]
        if token is not None:  # a call runner's: its report is the line its token starts, not what the answer printed
            return reported(out, token.decode())
        return ["passed", out[:CAPTURED]]
    if "output" in case:
        if status != 0:
            return ["error", exited(status) + ": " + err[-300:].strip()]
        if same_output(case["output"], out, case.get("tolerance")):
            return ["passed", ""]
        return ["failed", f"expected {quoted(case['output'])}, got {quoted(out)}"]
    if status != 0:
        return ["failed", exited(status) + ": " + (err or out)[-300:].strip()]
    if failure_marker and (failure_marker in err or failure_marker in out):
        return ["failed", (err or out)[-300:].strip()]
    if record is not None and b"".join(record) != token:
        return ["failed", "exited 0 before the test's checks completed (no completion record)"]
    return ["passed", ""]


def reported(out, token):
    """A call runner's report: the first line that starts with the build's token (only the runner can spell it;
    an answer that printed a report of its own, or ended the program before the runner reported, has none)."""
    for line in out.split("\n"):
        if line.startswith(token):
            return ["passed", line[len(token) :][:CAPTURED]]
    return ["error", "the call returned no result: the program ended before the runner reported"]


def kill_descendants():
    """Kill every process the last build or case left behind. The driver is a child subreaper, so what they
    left running (daemonised too) is reparented here, never beyond reach: kill children until none is left."""
    me = str(os.getpid())
    while True:
        children = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                with contextlib.suppress(OSError, IndexError), open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == me:
                        children.append(int(pid))
        if not children:
            return
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def main():
    with open(SPEC_FILE) as f:
        spec = json.load(f)
    os.unlink(SPEC_FILE)
    libc = ctypes.CDLL(None)
    with contextlib.suppress(OSError, AttributeError):
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    base_env = {"LANG": "C.UTF-8", **spec["env"], "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")}
    top = os.getcwd()
    results, load_error, errors = [], None, {}
    built = None  # the step last built (all stdin/stdout cases share one)
    token = None  # its completion token (test programs with a runner)
    # Observed runs (generated inputs) stop after `stop_after_timeouts` timeouts: a program too slow for one input
    # is mostly too slow for the next, and each further timeout costs a full time limit to say nothing new
    stop_after, timeouts = spec.get("stop_after_timeouts"), 0
    for case in spec["cases"]:
        k = case["step"]
        step = spec["steps"][k]
        if built != k:
            # Each step builds in a directory of its own, made afresh: nothing planted there beforehand counts.
            os.chdir(top)
            where = f"step{k}"
            shutil.rmtree(where, ignore_errors=True)
            os.mkdir(where)
            os.chdir(where)
            # Caches (Go's build cache) and temporary files live and die with the step: nothing carries over.
            env = {**base_env, "HOME": os.getcwd(), "TMPDIR": os.getcwd()}
            token, spelled = completion_token() if step.get("record") else (None, None)
            errors[k] = build(step, env, spec["build_timeout"], spelled)
            kill_descendants()
            built = k
            if errors[k] is not None and "output" in case:
                load_error = errors[k]  # the program the stdin/stdout cases share does not build
        if errors[k] is not None:
            results.append(["error" if "output" in case else "failed", errors[k][-600:]])
            continue
        if stop_after is not None and timeouts >= stop_after:
            results.append(["not_run", f"not run: {timeouts} cases before it took longer than the time limit"])
            continue
        results.append(run_case(case, step, env, spec, token))
        timeouts += results[-1][0] == "timeout"
        kill_descendants()
    report = "\n" + spec["nonce"] + json.dumps({"load_error": load_error, "results": results}) + "\n"
    os.write(1, report.encode())


if __name__ == "__main__":
    main()
