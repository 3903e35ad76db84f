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
import json
import math
import os
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


def build(step, env, timeout, spelled=None):
    """Write the step's sources (the completion token spelled into them, where `spelled`), run its build; returns
    the build error or None. The sources that hold the token (`secret`) are deleted once built."""
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
        return None
    finally:
        for name in step.get("secret") or ():
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
